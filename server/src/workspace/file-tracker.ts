/**
 * What each agent has read, and one write at a time per file. A write to a file that changed on
 * disk since the agent last read it is refused ("modified since read"): the agent would be
 * overwriting work it has not seen.
 */
import { createHash } from 'node:crypto';

export function contentHash(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export class FileTracker {
  /** agentId → absolute path → hash of the content the agent last saw. */
  readonly #seen = new Map<string, Map<string, string>>();
  readonly #locks = new Map<string, Promise<unknown>>();

  /** Records that `agentId` has seen `content` of the file (after reading or writing it). */
  recordSeen(agentId: string, absolute: string, content: string | Uint8Array): void {
    let files = this.#seen.get(agentId);
    if (files === undefined) this.#seen.set(agentId, (files = new Map<string, string>()));
    files.set(absolute, contentHash(content));
  }

  /** Forgets what the agent saw of a file that no longer exists (deleted or moved away). */
  forget(agentId: string, absolute: string): void {
    this.#seen.get(agentId)?.delete(absolute);
  }

  /**
   * Undefined when the agent may overwrite the file: it has not read it (the approval shows
   * the whole change anyway), or `current` (the file's content now; undefined: it is gone) is as
   * the agent last saw it. Otherwise a message for the model.
   */
  modifiedSinceRead(
    agentId: string,
    absolute: string,
    display: string,
    current: string | Uint8Array | undefined,
  ): string | undefined {
    const seen = this.#seen.get(agentId)?.get(absolute);
    if (seen === undefined) return undefined;
    if (current !== undefined && contentHash(current) === seen) return undefined;
    return current === undefined
      ? `${display} was deleted since you last read it. Check with list_dir or get_file_info before writing.`
      : `${display} was modified since you last read it (by the user or another agent). Read it again, then redo your change on the current content.`;
  }

  /** Runs `task` when every earlier task on the same file has finished. */
  async withLock<T>(absolute: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#locks.get(absolute) ?? Promise.resolve();
    const run = previous.then(task, task);
    const settled = run.catch(() => {});
    this.#locks.set(absolute, settled);
    try {
      return await run;
    } finally {
      if (this.#locks.get(absolute) === settled) this.#locks.delete(absolute);
    }
  }
}
