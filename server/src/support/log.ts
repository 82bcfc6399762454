/**
 * The server's log. It goes to stderr (or a file), never stdout, which carries protocol only.
 */
export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

const LEVELS: readonly LogLevel[] = ['error', 'warn', 'info', 'debug'];

export interface Logger {
  error(message: string): void;
  warn(message: string): void;
  info(message: string): void;
  debug(message: string): void;
}

export function isLogLevel(value: string): value is LogLevel {
  return (LEVELS as readonly string[]).includes(value);
}

/**
 * Removes known secrets (API keys) from text before it leaves the process: log lines, error
 * messages in phases. Defence in depth: no code path should put a key in a message at all.
 */
export class Redactor {
  readonly #secrets = new Set<string>();

  add(secret: string | undefined): void {
    // Very short values would redact ordinary words; real keys are long.
    if (secret !== undefined && secret.length >= 8) this.#secrets.add(secret);
  }

  apply(text: string): string {
    let result = text;
    for (const secret of this.#secrets)
      if (result.includes(secret)) result = result.replaceAll(secret, '[redacted]');
    return result;
  }
}

/** A logger writing `santra-server: <level>: <message>` lines at or above `level`. */
export function createLogger(
  write: (line: string) => void,
  level: LogLevel = 'warn',
  redactor?: Redactor,
): Logger {
  const threshold = LEVELS.indexOf(level);
  const at = (lineLevel: LogLevel) => (message: string) => {
    if (LEVELS.indexOf(lineLevel) <= threshold) {
      write(`santra-server: ${lineLevel}: ${redactor === undefined ? message : redactor.apply(message)}\n`);
    }
  };
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}
