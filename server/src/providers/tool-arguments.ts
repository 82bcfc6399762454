/**
 * Parsing the argument text of a native tool call. Arguments cut off by the output limit are
 * never executed; the model is told to retry with a smaller call.
 */
export function parseToolArguments(
  text: string,
  cutOff: boolean,
): { args: Record<string, unknown>; argsText: string; argsError?: string } {
  const trimmed = text.trim();
  if (trimmed === '')
    return cutOff ? { args: {}, argsText: text, argsError: CUT_OFF } : { args: {}, argsText: text };
  try {
    const value: unknown = JSON.parse(trimmed);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return { args: {}, argsText: text, argsError: 'The arguments must be a JSON object.' };
    }
    return { args: value as Record<string, unknown>, argsText: text };
  } catch (error) {
    if (cutOff) return { args: {}, argsText: text, argsError: CUT_OFF };
    return {
      args: {},
      argsText: text,
      argsError: `The arguments are not valid JSON (${(error as Error).message}). Send them again as one JSON object.`,
    };
  }
}

const CUT_OFF =
  'The arguments were cut off by the output token limit, so the call was not executed. Make the call again with shorter arguments (for a large file, write it in parts).';
