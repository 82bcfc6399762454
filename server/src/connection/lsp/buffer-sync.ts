/**
 * Santra writes files on disk (atomically, after approval); an editor's open buffer of such a
 * file would then hold stale text, and saving it would undo the approved change. So after each
 * tool result of a run, every open file whose disk content changed since the run began is brought
 * to the new content with `workspace/applyEdit` — one minimal edit, so it lands in the editor's
 * undo history and leaves the cursor alone outside the change.
 *
 * The Santra protocol has no way for a client to apply a change itself (approve answers a
 * decision only), hence this mirror after the fact; see the report on a protocol addition.
 */
import { readFile } from 'node:fs/promises';
import type {
  ApplyWorkspaceEditParams,
  ApplyWorkspaceEditResult,
  WorkspaceEdit,
} from 'vscode-languageserver-protocol';
import { type Documents, minimalEdit, type OpenDocument } from './documents.ts';

export interface BufferSyncOptions {
  documents: Documents;
  applyEdit: (params: ApplyWorkspaceEditParams) => Promise<ApplyWorkspaceEditResult>;
  /** The editor takes `documentChanges` (versioned: it refuses an edit made for an older buffer). */
  documentChanges: boolean;
  /** Tells the user what could not be brought into a buffer. */
  warn: (message: string) => void;
}

export class BufferSync {
  readonly #options: BufferSyncOptions;
  /** Disk content of each open file as last seen (undefined: no such file). */
  readonly #disk = new Map<string, string | undefined>();
  /** Syncs run one after another, so no edit is made against a buffer an earlier one changed. */
  #queue: Promise<void> = Promise.resolve();

  constructor(options: BufferSyncOptions) {
    this.#options = options;
  }

  /** Records the disk content of the open files under `root`, before a run changes any. */
  async snapshot(root: string): Promise<void> {
    for (const document of this.#filesUnder(root)) {
      this.#disk.set(document.path, await readText(document.path));
    }
  }

  /** Brings each open file under `root` that changed on disk into its buffer; resolves when done. */
  sync(root: string): Promise<void> {
    this.#queue = this.#queue.then(() => this.#syncNow(root));
    return this.#queue;
  }

  async #syncNow(root: string): Promise<void> {
    for (const document of this.#filesUnder(root)) {
      const disk = await readText(document.path);
      const known = this.#disk.has(document.path);
      const before = this.#disk.get(document.path);
      this.#disk.set(document.path, disk);
      // A file opened mid-run is only recorded; a deleted or moved file leaves its buffer alone.
      if (!known || disk === undefined || disk === before) continue;
      if (document.text !== before) {
        this.#options.warn(
          `santra: ${document.path} had unsaved changes; its buffer now holds the file as Santra wrote it (undo brings your changes back)`,
        );
      }
      await this.#apply(document, disk);
    }
  }

  async #apply(document: OpenDocument & { path: string }, content: string): Promise<void> {
    const edit = minimalEdit(document.text, content);
    if (edit === undefined) return;
    const change: WorkspaceEdit = this.#options.documentChanges
      ? {
          documentChanges: [
            { textDocument: { uri: document.uri, version: document.version }, edits: [edit] },
          ],
        }
      : { changes: { [document.uri]: [edit] } };
    const failure = `santra: ${document.path} was changed on disk but its buffer could not be updated`;
    try {
      const result = await this.#options.applyEdit({ label: 'Santra', edit: change });
      if (!result.applied) {
        this.#options.warn(
          `${failure}${result.failureReason === undefined ? '' : ` (${result.failureReason})`}: reload it`,
        );
      }
    } catch (error) {
      this.#options.warn(`${failure} (${error instanceof Error ? error.message : String(error)}): reload it`);
    }
  }

  *#filesUnder(root: string): Generator<OpenDocument & { path: string }> {
    const prefix = root.endsWith('/') ? root : `${root}/`;
    for (const document of this.#options.documents.all()) {
      if (document.path?.startsWith(prefix) === true) yield { ...document, path: document.path };
    }
  }
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
}
