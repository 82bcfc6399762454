/**
 * What never goes into a memory file: a known key (the Redactor's), a value in a published
 * credential format (the table run_command scrubs the environment with), or the value of a
 * `NAME=value` whose name says it is a secret. A memory file is plain text the user may commit,
 * sync or paste; a secret in it would outlive the session that saw it.
 */
import type { Redactor } from '../support/log.ts';
import { SECRET_FORMATS, SECRET_NAME_WORDS } from '../tools/commands/secret-patterns.ts';

export const REDACTED = '[redacted]';

const FORMATS = SECRET_FORMATS.map(
  (format) =>
    new RegExp(
      format.pattern.source,
      format.pattern.flags.includes('g') ? format.pattern.flags : `${format.pattern.flags}g`,
    ),
);

/** `API_KEY=…`, `password: …`, `"token": "…"`: a secret-like name, then a value. */
const ASSIGNMENT = /([\w.-]*)(["']?\s*[:=]\s*["']?)([^\s"',;]+)/g;

/** `text` with every secret replaced by [redacted], and whether anything was. */
export function redactSecrets(text: string, redactor: Redactor): { text: string; redacted: boolean } {
  let result = redactor.apply(text);
  for (const format of FORMATS) {
    // The whole word the credential sits in: a format may match only its distinctive start.
    result = result.replace(format, (match) => (match.trim() === '' ? match : `\u0000${match}\u0000`));
  }
  result = result.replace(/\S*\u0000[^]*?\u0000\S*/g, REDACTED);
  result = result.replace(ASSIGNMENT, (whole, name: string, sep: string, value: string) =>
    SECRET_NAME_WORDS.test(name) && value !== REDACTED ? `${name}${sep}${REDACTED}` : whole,
  );
  return { text: result, redacted: result !== text };
}
