/** The parts of `process` that the check reads and writes. */
export interface NodeProcess {
  versions: { node: string };
  version: string;
  execPath: string;
  stderr: { write(text: string): unknown };
  exitCode?: number | string | null | undefined;
}

/**
 * Whether this Node satisfies `range` (package.json's engines.node, of the form `>=22.18`). If not,
 * says so in one line on stderr, sets exit code 1 and returns false. See node-version.js.
 */
export function nodeVersionOk(proc: NodeProcess, program: string, range: string): boolean;
