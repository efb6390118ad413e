import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

// Temp names are unique by a random prefix per process and a counter: random bytes per write
// were a synchronous crypto call on every write of the DAG's path, for no better uniqueness.
const TEMP_PREFIX = `${randomBytes(6).toString('hex')}-`;
let tempCount = 0;

/**
 * Writes a file so that readers see the old content or the new one, never half of it:
 * write a temp file beside the target, optionally fsync it, rename it over the target.
 * `durable` also fsyncs (survives power loss); a kill -9 is survived either way.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, options: { durable?: boolean } = {}): Promise<void> {
  const dir = dirname(path);
  const temp = join(dir, `.cairn-tmp-${TEMP_PREFIX}${(tempCount++).toString(36)}`);
  // The folder nearly always exists (a meta beside its file, a sidecar in its directory): it is
  // made only when the open says it is missing, which saves a syscall per write on the DAG's path.
  const handle = await open(temp, 'w').catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
    await mkdir(dir, { recursive: true });
    return open(temp, 'w');
  });
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
