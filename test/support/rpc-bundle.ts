/**
 * Bundles a TypeScript entry (a worker or a child-process script) with esbuild for a test, the
 * way scripts/build-main.mjs bundles the real entries: ESM, packages external.
 *
 * The bundle goes under test-output/ inside the repository (git-ignored) rather than the OS temp
 * folder, so that its external imports (zod, ...) resolve from the repository's node_modules.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface TestBundle {
  /** The bundled .mjs file. */
  file: string;
  url: URL;
  dispose(): Promise<void>;
}

/** @example const bundle = await bundleForTest('test/support/rpc-test.worker.ts'); new Worker(bundle.url); */
export async function bundleForTest(entry: string): Promise<TestBundle> {
  const base = join(repoRoot, 'test-output');
  await mkdir(base, { recursive: true });
  const dir = await mkdtemp(join(base, 'bundle-'));
  const file = join(dir, `${basename(entry).replace(/\.ts$/, '')}.mjs`);
  await build({
    entryPoints: [join(repoRoot, entry)],
    outfile: file,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    packages: 'external',
    sourcemap: 'inline',
    logLevel: 'silent',
  });
  return { file, url: pathToFileURL(file), dispose: () => rm(dir, { recursive: true, force: true }) };
}
