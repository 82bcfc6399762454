/**
 * The editor's open documents, as the editor has them: the text of a selection and what Santra
 * reads of an open file come from here, and a change Santra makes is turned into a text edit
 * against this text, so it lands in the buffer (unsaved changes and all) rather than beside it.
 *
 * Positions are LSP's default encoding, UTF-16 code units, which is what a JavaScript string
 * index counts; the server does not offer another `positionEncoding`.
 */
import { realpath } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type {
  Position,
  Range,
  TextDocumentContentChangeEvent,
  TextEdit,
} from 'vscode-languageserver-protocol';

export interface OpenDocument {
  uri: string;
  /** The file's path, or undefined for a document that is not a file (`untitled:`…). */
  path: string | undefined;
  languageId: string;
  version: number;
  text: string;
}

export class Documents {
  readonly #open = new Map<string, OpenDocument>();
  /** Called after each open, change or close, for whoever waits for the editor's word. */
  readonly #watchers = new Set<() => void>();

  open(uri: string, languageId: string, version: number, text: string): void {
    this.#open.set(uri, { uri, path: filePath(uri), languageId, version, text });
    this.#notify();
  }

  close(uri: string): void {
    this.#open.delete(uri);
    this.#notify();
  }

  get(uri: string): OpenDocument | undefined {
    return this.#open.get(uri);
  }

  /**
   * The open document of the file at `path` — Santra names files with symbolic links resolved,
   * the editor as the user opened them, so each side's path is resolved before they are compared.
   */
  async find(path: string): Promise<OpenDocument | undefined> {
    const documents = this.all();
    const named = documents.find((document) => document.path === path);
    if (named !== undefined) return named;
    for (const document of documents) {
      if (document.path === undefined) continue;
      const resolved = await realpath(document.path).catch(() => undefined);
      if (resolved === path) return this.#open.get(document.uri);
    }
    return undefined;
  }

  /**
   * Resolves true once the document at `uri` is open and `holds` its state, false when `ms` pass
   * or `signal` aborts first. The editor reports an edit it applied with didChange, which may come
   * after its answer to the edit (Neovim delays it up to 150 ms).
   */
  until(
    uri: string,
    holds: (document: OpenDocument) => boolean,
    ms: number,
    signal: AbortSignal,
  ): Promise<boolean> {
    return new Promise((resolve) => {
      const check = () => {
        const document = this.#open.get(uri);
        if (document !== undefined && holds(document)) finish(true);
      };
      const finish = (held: boolean) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', abandon);
        this.#watchers.delete(check);
        resolve(held);
      };
      const abandon = () => finish(false);
      const timer = setTimeout(abandon, ms);
      signal.addEventListener('abort', abandon, { once: true });
      this.#watchers.add(check);
      if (signal.aborted) abandon();
      else check();
    });
  }

  all(): OpenDocument[] {
    return [...this.#open.values()];
  }

  /** Applies the editor's changes in order; a change to a document never opened is ignored. */
  change(uri: string, version: number, changes: readonly TextDocumentContentChangeEvent[]): void {
    const document = this.#open.get(uri);
    if (document === undefined) return;
    for (const change of changes) {
      if ('range' in change) {
        const start = offsetAt(document.text, change.range.start);
        const end = offsetAt(document.text, change.range.end);
        document.text = document.text.slice(0, start) + change.text + document.text.slice(end);
      } else {
        document.text = change.text;
      }
    }
    document.version = version;
    this.#notify();
  }

  #notify(): void {
    for (const watcher of [...this.#watchers]) watcher();
  }
}

/** The path of a `file:` URI; undefined for any other scheme. */
export function filePath(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

/** The offset of `position` in `text`, clamped to the line and the text as LSP asks. */
export function offsetAt(text: string, position: Position): number {
  let offset = 0;
  for (let line = 0; line < position.line; line++) {
    const next = text.indexOf('\n', offset);
    if (next === -1) return text.length;
    offset = next + 1;
  }
  const lineEnd = text.indexOf('\n', offset);
  const end = lineEnd === -1 ? text.length : lineEnd;
  return Math.min(offset + Math.max(0, position.character), end);
}

export function positionAt(text: string, offset: number): Position {
  const before = text.slice(0, offset);
  const line = before.split('\n').length - 1;
  return { line, character: offset - (before.lastIndexOf('\n') + 1) };
}

export function textIn(text: string, range: Range): string {
  return text.slice(offsetAt(text, range.start), offsetAt(text, range.end));
}

/**
 * The one edit that turns `from` into `to`: the differing middle, with the common start and end
 * kept, so the editor keeps its cursor, marks and folds outside the change. Undefined when equal.
 */
export function minimalEdit(from: string, to: string): TextEdit | undefined {
  if (from === to) return undefined;
  let start = 0;
  const shorter = Math.min(from.length, to.length);
  while (start < shorter && from[start] === to[start]) start++;
  // Never split a surrogate pair: a position inside one names no character.
  if (start > 0 && isHighSurrogate(from.charCodeAt(start - 1))) start--;
  let end = 0;
  while (end < shorter - start && from[from.length - 1 - end] === to[to.length - 1 - end]) end++;
  if (end > 0 && isLowSurrogate(from.charCodeAt(from.length - end))) end--;
  return {
    range: { start: positionAt(from, start), end: positionAt(from, from.length - end) },
    newText: to.slice(start, to.length - end),
  };
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;
