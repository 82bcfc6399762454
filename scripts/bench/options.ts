/**
 * Command-line options of the benchmarks: a counter that reads one positive integer option, or
 * exits with the usage (exit code 2) naming the script and the option.
 */
export function positiveIntegers<K extends string>(
  script: string,
  usage: string,
  values: Partial<Record<K, unknown>>,
): (name: K) => number {
  return (name) => {
    const number = Number(values[name]);
    if (!Number.isInteger(number) || number < 1) {
      console.error(
        `${script}: --${name} must be a positive integer, got '${String(values[name])}'\n${usage}`,
      );
      process.exit(2);
    }
    return number;
  };
}
