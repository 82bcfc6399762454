/**
 * Moving a file between two pinned directories (pinned-dir.ts): a rename, or across file systems
 * a copy that never overwrites and never follows a link at either end, then the unlink. Used by
 * move_file and by session/undo to move a file back.
 */
import { constants } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { errorCode } from '../support/errno.ts';
import { O_NOFOLLOW, type PinnedDir } from './pinned-dir.ts';

/** Renames between two pinned directories, or copies (never overwriting) and unlinks across file systems. */
export async function moveEntry(
  fromDir: PinnedDir,
  fromName: string,
  toDir: PinnedDir,
  toName: string,
): Promise<void> {
  await fromDir.verify();
  await toDir.verify();
  try {
    await rename(fromDir.entry(fromName), toDir.entry(toName));
  } catch (error) {
    if (errorCode(error) !== 'EXDEV') throw error;
    // Another file system (an allowed directory elsewhere): copy without overwriting, then remove the source.
    await copyExclusive(fromDir.entry(fromName), toDir.entry(toName));
    await fromDir.verify();
    await unlink(fromDir.entry(fromName));
  }
  await toDir.sync();
  await fromDir.sync();
}

/** copyFile with COPYFILE_EXCL, except that neither end is followed if it is a symbolic link. */
async function copyExclusive(from: string, to: string): Promise<void> {
  const input = await open(from, constants.O_RDONLY | O_NOFOLLOW);
  try {
    const info = await input.stat();
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW;
    const output = await open(to, flags, info.mode & 0o7777);
    try {
      const buffer = Buffer.allocUnsafe(1024 * 1024);
      for (;;) {
        const { bytesRead } = await input.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) break;
        await output.write(buffer, 0, bytesRead);
      }
      await output.sync();
      await output.close();
    } catch (error) {
      await output.close().catch(() => {});
      await unlink(to).catch(() => {});
      throw error;
    }
  } finally {
    await input.close();
  }
}
