/** The `code` of a Node.js system error (`ENOENT`, `EACCES`…), or undefined for anything else. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** What a file-system error code means for a file of the user's, in words, with the fix. */
export function describeFsError(code: string | undefined): string {
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return `permission denied (${code}); fix its permissions`;
    case 'ELOOP':
      return 'too many levels of symbolic links (ELOOP); fix or remove the link';
    case undefined:
      return 'unknown error';
    default:
      return `error ${code}`;
  }
}

/** An error's message, or what was thrown in its place as a string. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
