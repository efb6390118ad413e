import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * Writes a file so that readers see the old content or the new one, never half of it:
 * write a temp file beside the target, optionally fsync it, rename it over the target.
 * `durable` also fsyncs (survives power loss); a kill -9 is survived either way.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, options: { durable?: boolean } = {}): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const temp = join(dir, `.cairn-tmp-${randomBytes(6).toString('hex')}`);
  const handle = await open(temp, 'w');
  try {
    await handle.writeFile(data);
    if (options.durable) await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  if (options.durable) await fsyncDir(dir);
}

async function fsyncDir(dir: string): Promise<void> {
  // Directory fsync makes the rename itself durable; some platforms refuse it, which is harmless.
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    /* not supported here */
  }
}
