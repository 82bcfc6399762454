/**
 * The editor's buffers as Santra sees and changes them. Santra's protocol lets a client lend its
 * files (§7.5), and `santra lsp` lends the editor's open buffers:
 *
 * - `fs/readTextFile`: an open file's text is its buffer, unsaved changes included, so the model
 *   reads, and Santra's edits are made against, what the user sees. A file not open: null, and
 *   Santra reads the disk.
 * - `fs/writeTextFile`: an approved change of an open file becomes one versioned
 *   `workspace/applyEdit` (a minimal edit, so it lands in the editor's undo history and leaves the
 *   cursor alone outside the change), answered once the editor reports the buffer holds it. LSP
 *   has no request to save a buffer: the buffer holds the change, marked modified, and Santra
 *   writes the disk itself after the answer (SANTRA-FILES-006). A file not open is answered at
 *   once, and Santra writes it; this adapter never writes files.
 *
 * What changes on disk by other means — a command the model ran, a file it created or moved, an
 * edit the editor refused — still leaves a buffer stale, and saving it would undo the change. So
 * after each tool result of a run, every open file whose disk content changed since the run began,
 * and whose buffer does not already hold it, is brought to the new content the same way.
 *
 * The editor's undo takes such a change out of the buffer only: the disk keeps it, and an editor
 * that compares with its last save then calls the buffer unmodified. When a buffer goes back to
 * exactly its text before Santra's change while the disk still holds the change, the user is told
 * so, and how to undo it on disk too (santra.undo).
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

/** Written: the buffer holds the text, or the file is not open. Otherwise why the editor did not take it. */
export type WriteOutcome = { written: true } | { written: false; reason: string };

/**
 * How long the editor may take to report (didChange) an edit it said it applied; well within the
 * time Santra waits for the answer (EDITOR_FILE_TIMEOUT_MS, 10 s).
 */
const EDIT_CONFIRM_MS = 3000;

export class BufferSync {
  readonly #options: BufferSyncOptions;
  /** Disk content of each open file as last seen (undefined: no such file). */
  readonly #disk = new Map<string, string | undefined>();
  /**
   * The text Santra last gave each open file's buffer, taken or not: made from the buffer, so a
   * disk that holds it holds the buffer's unsaved changes too, and mirroring it loses nothing.
   */
  readonly #lent = new Map<string, string>();
  /** Santra's latest change of each open file's buffer: its text before, and what it gave. */
  readonly #changed = new Map<string, { before: string; after: string }>();
  /** Edits run one after another, so none is made against a buffer an earlier one changed. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: BufferSyncOptions) {
    this.#options = options;
  }

  /** The text of the editor's buffer of the file at `path`; null when the editor has none. */
  async text(path: string): Promise<string | null> {
    return (await this.#options.documents.find(path))?.text ?? null;
  }

  /** Puts `text` into the editor's buffer of the file at `path`, if it has one, after earlier edits. */
  write(path: string, text: string, signal: AbortSignal): Promise<WriteOutcome> {
    return this.#enqueue(() => this.#writeNow(path, text, signal));
  }

  /** Records the disk content of the open files under `root`, before a run changes any. */
  async snapshot(root: string): Promise<void> {
    for (const document of this.#filesUnder(root)) {
      this.#disk.set(document.path, await readText(document.path));
    }
  }

  /** Brings each open file under `root` that changed on disk into its buffer; resolves when done. */
  sync(root: string): Promise<void> {
    return this.#enqueue(() => this.#syncNow(root));
  }

  /** Forgets the changes made under `root` so far: santra.undo put them back, or chose to keep them. */
  forget(root: string): void {
    for (const document of this.#filesUnder(root)) this.#changed.delete(document.path);
  }

  /**
   * Called after the editor reported a change of the buffer at `uri`: if it now holds its text from
   * before Santra's change (the user undid it) while the disk still holds the change, says so once.
   */
  async noticeChange(uri: string): Promise<void> {
    const document = this.#options.documents.get(uri);
    const change = document?.path === undefined ? undefined : this.#changed.get(document.path);
    if (document?.path === undefined || change === undefined || document.text !== change.before) return;
    if ((await readText(document.path)) !== change.after) return;
    this.#changed.delete(document.path);
    this.#options.warn(
      `santra: ${document.path}: your undo took Santra's change out of the buffer, but the file on disk still has it. To undo it there too, run santra.undo (Helix: :lsp-workspace-command santra.undo); or save the buffer.`,
    );
  }

  #enqueue<T>(task: () => Promise<T>): Promise<T> {
    const done = this.#queue.then(task);
    // A failed task must not stop the ones after it; its caller sees the failure.
    this.#queue = done.catch(() => undefined);
    return done;
  }

  async #writeNow(path: string, text: string, signal: AbortSignal): Promise<WriteOutcome> {
    const document = await this.#options.documents.find(path);
    if (document?.path === undefined || document.text === text) return { written: true };
    this.#lent.set(document.path, text);
    const before = document.text;
    const failure = await this.#apply(document, text);
    if (failure !== undefined)
      return { written: false, reason: `the editor did not take the edit of ${path}: ${failure}` };
    this.#changed.set(document.path, { before, after: text });
    const held = await this.#options.documents.until(
      document.uri,
      (buffer) => buffer.text === text,
      EDIT_CONFIRM_MS,
      signal,
    );
    return held
      ? { written: true }
      : { written: false, reason: `the editor accepted the edit of ${path} but its buffer does not hold it` };
  }

  async #syncNow(root: string): Promise<void> {
    for (const document of this.#filesUnder(root)) {
      const disk = await readText(document.path);
      const known = this.#disk.has(document.path);
      const before = this.#disk.get(document.path);
      this.#disk.set(document.path, disk);
      const lent = this.#lent.get(document.path) === disk;
      this.#lent.delete(document.path);
      // A file opened mid-run is only recorded; a deleted or moved file leaves its buffer alone;
      // a buffer that holds the disk's text already (Santra's edit went through it) is left alone.
      if (!known || disk === undefined || disk === before || disk === document.text) continue;
      if (document.text !== before && !lent) {
        this.#options.warn(
          `santra: ${document.path} had unsaved changes; its buffer now holds the file as it is on disk (undo brings your changes back)`,
        );
      }
      const failure = await this.#apply(document, disk);
      if (failure === undefined) {
        this.#changed.set(document.path, { before: document.text, after: disk });
      } else {
        this.#options.warn(
          `santra: ${document.path} was changed on disk but its buffer could not be updated (${failure}): reload it`,
        );
      }
    }
  }

  /** Applies the edit that turns the buffer into `content`; undefined when done, else why not. */
  async #apply(document: OpenDocument, content: string): Promise<string | undefined> {
    const edit = minimalEdit(document.text, content);
    if (edit === undefined) return undefined;
    const change: WorkspaceEdit = this.#options.documentChanges
      ? {
          documentChanges: [
            { textDocument: { uri: document.uri, version: document.version }, edits: [edit] },
          ],
        }
      : { changes: { [document.uri]: [edit] } };
    try {
      const result = await this.#options.applyEdit({ label: 'Santra', edit: change });
      if (result.applied) return undefined;
      return result.failureReason ?? 'the editor refused it';
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
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
