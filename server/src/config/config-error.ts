/** A configuration problem the user must fix, with a message fit to print as it is. */
export class ConfigError extends Error {
  /** The config file concerned (it may not exist, e.g. for a bad environment variable). */
  readonly file: string;
  /** The offending field path (`providers.groq.apiKey`) or environment variable, when there is one. */
  readonly field?: string;

  constructor(file: string, message: string, field?: string) {
    super(message);
    this.name = 'ConfigError';
    this.file = file;
    if (field !== undefined) this.field = field;
  }
}
