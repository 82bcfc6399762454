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

/** A logger writing `santra-server: <level>: <message>` lines at or above `level`. */
export function createLogger(write: (line: string) => void, level: LogLevel = 'warn'): Logger {
  const threshold = LEVELS.indexOf(level);
  const at = (lineLevel: LogLevel) => (message: string) => {
    if (LEVELS.indexOf(lineLevel) <= threshold) write(`santra-server: ${lineLevel}: ${message}\n`);
  };
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}
