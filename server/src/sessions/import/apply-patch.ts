/**
 * Codex's `apply_patch` format, read far enough to say what a patch did in Santra's terms:
 *
 *   *** Begin Patch
 *   *** Add File: path          then the file's lines, each starting with "+"
 *   *** Delete File: path
 *   *** Update File: path       then optionally "*** Move to: path", then hunks: an "@@" line
 *                               and lines starting with " " (context), "-" (removed), "+" (added)
 *   *** End Patch
 *
 * A patch of one file maps to one of Santra's file tools: an added file to write_file, a deleted
 * one to delete_file, an update to str_replace or multi_edit (each hunk's context and removed
 * lines are the text replaced, its context and added lines the replacement). A patch of several
 * files, a move, or a hunk that only adds (no text to find) has no such match: undefined.
 */

export type PatchCall =
  | { name: 'write_file'; args: { path: string; content: string } }
  | { name: 'delete_file'; args: { path: string } }
  | { name: 'str_replace'; args: { path: string; oldStr: string; newStr: string } }
  | { name: 'multi_edit'; args: { path: string; edits: Array<{ oldStr: string; newStr: string }> } };

interface FileOp {
  kind: 'add' | 'delete' | 'update';
  path: string;
  lines: string[];
  moved: boolean;
}

/** The Santra tool call a patch amounts to, or undefined when it is not one file's simple change. */
export function patchCall(patch: string, relative: (path: string) => string): PatchCall | undefined {
  const ops = parsePatch(patch);
  if (ops === undefined || ops.length !== 1) return undefined;
  const [op] = ops as [FileOp];
  const path = relative(op.path);
  if (op.kind === 'delete')
    return op.lines.length === 0 ? { name: 'delete_file', args: { path } } : undefined;
  if (op.kind === 'add') {
    if (!op.lines.every((line) => line.startsWith('+'))) return undefined;
    const content = op.lines.map((line) => line.slice(1)).join('\n');
    return { name: 'write_file', args: { path, content: content === '' ? '' : `${content}\n` } };
  }
  if (op.moved) return undefined;
  const edits = hunks(op.lines);
  if (edits === undefined || edits.length === 0) return undefined;
  if (edits.length === 1) {
    const [edit] = edits as [{ oldStr: string; newStr: string }];
    return { name: 'str_replace', args: { path, ...edit } };
  }
  return { name: 'multi_edit', args: { path, edits } };
}

function parsePatch(patch: string): FileOp[] | undefined {
  const lines = patch.replace(/\r\n/g, '\n').split('\n');
  const start = lines.findIndex((line) => line.trim() === '*** Begin Patch');
  if (start === -1) return undefined;
  const ops: FileOp[] = [];
  let current: FileOp | undefined;
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '*** End Patch') return ops;
    const header = /^\*\*\* (Add|Delete|Update) File: (.+)$/.exec(line);
    if (header !== null) {
      const kind = header[1] === 'Add' ? 'add' : header[1] === 'Delete' ? 'delete' : 'update';
      current = { kind, path: (header[2] as string).trim(), lines: [], moved: false };
      ops.push(current);
      continue;
    }
    if (current === undefined) {
      if (line.trim() === '') continue;
      return undefined;
    }
    if (line.startsWith('*** Move to: ')) current.moved = true;
    else if (line.trim() === '*** End of File') continue;
    else current.lines.push(line);
  }
  // No end marker: a patch cut short is not mapped.
  return undefined;
}

/** An update's hunks as replacements; undefined when one has nothing to find. */
function hunks(lines: readonly string[]): Array<{ oldStr: string; newStr: string }> | undefined {
  const edits: Array<{ oldStr: string; newStr: string }> = [];
  let before: string[] = [];
  let after: string[] = [];
  const close = (): boolean => {
    if (before.length === 0 && after.length === 0) return true;
    if (before.length === 0) return false;
    edits.push({ oldStr: before.join('\n'), newStr: after.join('\n') });
    before = [];
    after = [];
    return true;
  };
  for (const line of lines) {
    if (line.startsWith('@@')) {
      if (!close()) return undefined;
      continue;
    }
    const text = line.slice(1);
    if (line.startsWith('-')) before.push(text);
    else if (line.startsWith('+')) after.push(text);
    else if (line.startsWith(' ') || line === '') {
      before.push(text);
      after.push(text);
    } else return undefined;
  }
  return close() ? edits : undefined;
}
