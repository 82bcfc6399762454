/**
 * Cutting UTF-8 bytes to a byte budget without splitting a character: a cut that would fall
 * inside one moves to its edge.
 */

function isContinuation(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

/** The first `n` bytes of `buffer`, shortened so the cut falls before a character, not inside it. */
export function charBoundaryPrefix(buffer: Buffer, n: number): Buffer {
  let end = n;
  while (end > 0 && end < buffer.length && isContinuation(buffer[end])) end--;
  return buffer.subarray(0, end);
}

/** The last `n` bytes of `buffer`, shortened so it starts at a character. */
export function charBoundarySuffix(buffer: Buffer, n: number): Buffer {
  let start = buffer.length - n;
  while (start < buffer.length && isContinuation(buffer[start])) start++;
  return buffer.subarray(start);
}
