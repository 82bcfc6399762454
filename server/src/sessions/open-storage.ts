/**
 * The storage sessions are kept in: files under the config directory, or the shared store the
 * config names (`sessions.store`).
 */
import type { Logger } from '../support/log.ts';
import { FileStorage } from './file-storage.ts';
import { KeyvStorage } from './keyv-storage.ts';
import type { SessionStorage } from './storage.ts';

export interface OpenStorageOptions {
  /** `sessions.store` of the config: a Redis or PostgreSQL URL; undefined for files. */
  store: string | undefined;
  /** `<config dir>/sessions`, for files. */
  sessionsDir: string;
  workspaceRoot: string;
  /** Cleans each serialized record of secrets before it is stored. */
  redact: (text: string) => string;
  log: Logger;
}

/**
 * A shared store is connected in the background (a failure is logged at once) and never replaced
 * by files when it cannot be reached: sessions saved there would be missing from the store the
 * team shares, and the store's `ready()` refuses new prompts with the reason instead.
 */
export function openSessionStorage(options: OpenStorageOptions): SessionStorage {
  if (options.store === undefined)
    return new FileStorage(options.sessionsDir, options.workspaceRoot, options.redact);
  const storage = new KeyvStorage({
    url: options.store,
    workspaceRoot: options.workspaceRoot,
    redact: options.redact,
    log: options.log,
  });
  storage.start();
  return storage;
}
