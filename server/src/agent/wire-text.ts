/**
 * Text bound for the wire. The answer, a tool's output or an error message may be long, but no
 * message the server sends may exceed the limit it advertises (`maxMessageBytes`). Long text is
 * cut with a note saying how much is missing and where it is: the session keeps it whole, and an
 * answer has already streamed in full as `text` phases.
 */

/** The most a text field of one message may take, as UTF-8 inside JSON: far below 16 MiB. */
export const MAX_WIRE_TEXT_BYTES = 1024 * 1024;

/** Bytes `text` takes as a JSON string (quotes and escapes included), in UTF-8. */
export function wireBytes(text: string): number {
  return Buffer.byteLength(JSON.stringify(text));
}

/** `text` cut to fit `maxBytes` on the wire, with a note naming what was cut and where it is kept. */
export function fitText(text: string, where: string, maxBytes = MAX_WIRE_TEXT_BYTES): string {
  // A JSON-escaped character takes at most 6 bytes, so short text needs no measuring.
  if (text.length * 6 + 2 <= maxBytes || wireBytes(text) <= maxBytes) return text;
  const note = (kept: number) =>
    `\n\n[… ${text.length - kept} more characters not sent (${text.length} in all); ${where}.]`;
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (wireBytes(text.slice(0, mid) + note(mid)) <= maxBytes) low = mid;
    else high = mid - 1;
  }
  // Never split a surrogate pair.
  const code = text.charCodeAt(low - 1);
  const kept = code >= 0xd800 && code <= 0xdbff ? low - 1 : low;
  return text.slice(0, kept) + note(kept);
}

/**
 * A tool call's arguments for the wire: when they are too large as a whole, each long string in
 * them is cut (the tool itself receives them whole).
 */
export function fitArgs(
  args: Record<string, unknown>,
  maxBytes = MAX_WIRE_TEXT_BYTES,
): Record<string, unknown> {
  if (wireBytes(JSON.stringify(args)) <= maxBytes) return args;
  const cut = (value: unknown): unknown => {
    if (typeof value === 'string') return fitText(value, 'the tool received it whole', 16 * 1024);
    if (Array.isArray(value)) return value.map(cut);
    if (typeof value === 'object' && value !== null)
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, cut(inner)]));
    return value;
  };
  return cut(args) as Record<string, unknown>;
}
