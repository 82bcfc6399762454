/**
 * Writing a file atomically: a temp file in the same directory, fsync, rename over the target,
 * the target's mode preserved. A reader sees the old content or the new, never half of it; a
 * crash leaves at worst a stray temp file, never a truncated one.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export async function atomicWrite(absolute: string, data: string | Uint8Array): Promise<void> {
  const dir = dirname(absolute);
  await mkdir(dir, { recursive: true });
  const existing = await stat(absolute).catch(() => undefined);
  const temp = join(dir, `.${basename(absolute)}.santra-${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', existing === undefined ? 0o666 : existing.mode & 0o7777);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => {});
    await unlink(temp).catch(() => {});
    throw error;
  }
  await handle.close();
  try {
    // The umask applied at creation; the original mode (e.g. an executable script) must survive.
    if (existing !== undefined) await chmod(temp, existing.mode & 0o7777);
    await rename(temp, absolute);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
  // Make the rename itself durable.
  const dirHandle = await open(dir, 'r').catch(() => undefined);
  await dirHandle?.sync().catch(() => {});
  await dirHandle?.close();
}
