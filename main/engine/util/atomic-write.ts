import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

// Temp names are unique by a random prefix per process and a counter: random bytes per write
// were a synchronous crypto call on every write of the DAG's path, for no better uniqueness.
const TEMP_PREFIX = `${randomBytes(6).toString('hex')}-`;
let tempCount = 0;

/**
 * Up to this length (characters of a string, bytes of a buffer) a non-durable write is made synchronously. A small file's open, write, close
 * and rename cost microseconds each, while each one made through the thread pool costs a
 * promise, a completion and a turn of the event loop: about ten times the CPU of the whole
 * synchronous write. The DAG writes a meta or a sidecar per node, and that CPU on the engine's
 * thread delays every LLM answer in flight (issue 4). Larger or durable writes stay asynchronous.
 */
const SYNC_WRITE_MAX_LENGTH = 16 * 1024;

/**
 * Writes a file so that readers see the old content or the new one, never half of it:
 * write a temp file beside the target, optionally fsync it, rename it over the target.
 * `durable` also fsyncs (survives power loss); a kill -9 is survived either way.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, options: { durable?: boolean } = {}): Promise<void> {
  const dir = dirname(path);
  const temp = join(dir, `.cairn-tmp-${TEMP_PREFIX}${(tempCount++).toString(36)}`);
  if (!options.durable && data.length <= SYNC_WRITE_MAX_LENGTH) return writeSmallFile(path, temp, data);
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

/** writeFileAtomic for a small, non-durable write (see SYNC_WRITE_MAX_LENGTH). */
function writeSmallFile(path: string, temp: string, data: string | Uint8Array): void {
  try {
    writeFileSync(temp, data);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(dirname(temp), { recursive: true });
    writeFileSync(temp, data);
  }
  try {
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
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
