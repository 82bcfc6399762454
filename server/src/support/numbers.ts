/**
 * Numbers as people read them. Not `toLocaleString`: its first call loads ICU data (about 13 ms),
 * paid on the first prompt of every session for a tool description.
 */

/** 100000 → "100,000"; fractions are kept as they are. */
export function groupDigits(value: number): string {
  const [whole = '', fraction] = String(value).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}
