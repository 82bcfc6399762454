/**
 * The server's log. It goes to stderr (or a file), never stdout, which carries protocol only.
 */
import { mapStrings } from './map-strings.ts';

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

  /** A copy of `value` with every string in it redacted (phases, records). */
  applyDeep<T>(value: T): T {
    return this.#secrets.size === 0 ? value : mapStrings(value, (text) => this.apply(text));
  }

  /** The length of the longest end of `text` that is the beginning of a secret (0: none). */
  pendingLength(text: string): number {
    let longest = 0;
    for (const secret of this.#secrets) {
      for (let length = Math.min(secret.length - 1, text.length); length > longest; length--) {
        if (text.endsWith(secret.slice(0, length))) {
          longest = length;
          break;
        }
      }
    }
    return longest;
  }
}

/**
 * Redacts a text that arrives in pieces (a model's streamed answer), where a secret may be split
 * across two pieces: the end of a piece that could begin a secret is held back until the next
 * piece shows whether it does, or until `flush`.
 */
export class StreamRedactor {
  readonly #redactor: Redactor;
  #held = '';

  constructor(redactor: Redactor) {
    this.#redactor = redactor;
  }

  /** What of `text` (after what was held) can be shown now. */
  push(text: string): string {
    const redacted = this.#redactor.apply(this.#held + text);
    const pending = this.#redactor.pendingLength(redacted);
    this.#held = redacted.slice(redacted.length - pending);
    return redacted.slice(0, redacted.length - pending);
  }

  /** What is held back: the stream ended, so it is not the start of a secret. */
  flush(): string {
    const held = this.#held;
    this.#held = '';
    return held;
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
