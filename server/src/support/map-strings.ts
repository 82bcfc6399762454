/**
 * `value` with `change` applied to every string in it (object values and array items, at any
 * depth). What `change` leaves alone is shared, not copied: a value with nothing to change comes
 * back as itself, so redacting a large tool output that holds no secret costs a scan, not a copy.
 */
export function mapStrings<T>(value: T, change: (text: string) => string): T {
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') return change(item);
    if (typeof item !== 'object' || item === null) return item;
    if (Array.isArray(item)) {
      const mapped = item.map(walk);
      return mapped.some((inner, index) => inner !== item[index]) ? mapped : item;
    }
    let copy: Record<string, unknown> | undefined;
    for (const [key, inner] of Object.entries(item)) {
      const mapped = walk(inner);
      if (mapped !== inner) (copy ??= { ...item })[key] = mapped;
    }
    return copy ?? item;
  };
  return walk(value) as T;
}
