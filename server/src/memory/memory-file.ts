/**
 * The two memory files: the project's (`.santra/memory.md` in the workspace) and the user's
 * (`<config dir>/memory.md`). They are Markdown the user reads and edits; each fact is a line that
 * starts with "- ", and anything else in the file (headings, notes) is the user's and kept.
 *
 * Every write goes through `addEntries`: secrets redacted (secrets.ts), one line per entry, a
 * duplicate of an entry already there not added again, and the file kept under its cap by
 * dropping the oldest entries (the first ones: new entries are appended). Writes are atomic
 * (temp file and rename), so an editor or a crash never sees half a file.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { errorCode } from '../support/errno.ts';
import type { Redactor } from '../support/log.ts';
import { redactSecrets } from './secrets.ts';

export type MemoryScope = 'project' | 'user';

/** Bytes a memory file is kept under: it goes into every prompt. */
export const MAX_MEMORY_BYTES = 8 * 1024;
/** Characters of one entry. */
export const MAX_ENTRY_CHARS = 300;

export interface MemoryPaths {
  project: string;
  user: string;
}

export function memoryPaths(workspaceRoot: string, configDir: string): MemoryPaths {
  return { project: join(workspaceRoot, '.santra', 'memory.md'), user: join(configDir, 'memory.md') };
}

export interface MemoryFile {
  scope: MemoryScope;
  path: string;
  exists: boolean;
  text: string;
  entries: string[];
}

export async function readMemoryFile(scope: MemoryScope, path: string): Promise<MemoryFile> {
  let text = '';
  let exists = true;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (errorCode(error) !== 'ENOENT' && errorCode(error) !== 'ENOTDIR') throw error;
    exists = false;
  }
  return { scope, path, exists, text, entries: entriesOf(text) };
}

export function entriesOf(text: string): string[] {
  return text
    .split(/\r?\n/)
    .filter((line) => line.startsWith('- '))
    .map((line) => line.slice(2).trim())
    .filter((entry) => entry !== '');
}

export interface AddOutcome {
  file: MemoryFile;
  /** The entries as stored (redacted), in order; those already there are not in it. */
  added: string[];
  /** Entries removed to keep the file under its cap, oldest first. */
  dropped: string[];
}

const HEADINGS: Record<MemoryScope, string> = {
  project:
    '# Project memory\n\nWhat Santra remembers about this project, one fact a line ("- …"). Edit or delete lines freely; Santra adds facts after runs unless memory.autoExtract is off (docs/memory.md).\n',
  user: '# Santra memory\n\nWhat Santra remembers about you across projects, one fact a line ("- …"). Edit or delete lines freely (docs/memory.md).\n',
};

/** Adds `entries` to the file of `scope` at `path`, redacted, deduplicated, and capped. */
export async function addEntries(
  scope: MemoryScope,
  path: string,
  entries: readonly string[],
  redactor: Redactor,
  /** Called with what is about to be written, before the file changes (so no reader sees one without the other). */
  beforeWrite?: (outcome: Omit<AddOutcome, 'file'>) => void,
): Promise<AddOutcome> {
  const current = await readMemoryFile(scope, path);
  const known = new Set(current.entries.map(normalized));
  const added: string[] = [];
  for (const entry of entries) {
    const clean = cleanEntry(entry, redactor);
    if (clean === '' || known.has(normalized(clean))) continue;
    known.add(normalized(clean));
    added.push(clean);
  }
  if (added.length === 0) return { file: current, added, dropped: [] };
  const base =
    current.exists && current.text.trim() !== ''
      ? current.text.replace(/\s*$/, '\n')
      : `${HEADINGS[scope]}\n`;
  // The file may hold a secret the user pasted by hand: it is not ours to rewrite, but nothing
  // this write adds is one.
  let text = `${base}${added.map((entry) => `- ${entry}`).join('\n')}\n`;
  const dropped: string[] = [];
  while (Buffer.byteLength(text) > MAX_MEMORY_BYTES) {
    const lines = text.split('\n');
    const oldest = lines.findIndex((line) => line.startsWith('- '));
    if (oldest === -1) break;
    dropped.push((lines[oldest] as string).slice(2).trim());
    lines.splice(oldest, 1);
    text = lines.join('\n');
  }
  const stillAdded = added.filter((entry) => !dropped.includes(entry));
  beforeWrite?.({ added: stillAdded, dropped });
  await writeAtomically(path, text);
  return { file: { scope, path, exists: true, text, entries: entriesOf(text) }, added: stillAdded, dropped };
}

/** One line, redacted, capped. */
export function cleanEntry(entry: string, redactor: Redactor): string {
  const line = entry
    .replace(/^\s*[-*]\s+/, '')
    .replace(/\s+/g, ' ')
    .trim();
  const { text } = redactSecrets(line, redactor);
  return text.length > MAX_ENTRY_CHARS ? `${text.slice(0, MAX_ENTRY_CHARS - 1)}…` : text;
}

/** Two entries that differ only in case, spacing or a final full stop are one. */
function normalized(entry: string): string {
  return entry
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/[.!;,\s]+$/, '')
    .trim();
}

async function writeAtomically(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(temp, text, { mode: 0o600 });
  await rename(temp, path);
}
