// Runs the repository's TypeScript from plain Node scripts (benches, evaluations): bundles the
// given modules with esbuild to one ESM file under node_modules/.cache/ and imports it.
// Dependencies stay external, so they resolve from node_modules as the app's do (the cache sits
// inside node_modules for that reason), and the lexicon and grammars are found as in the repo.
//
// @example
// const { createLocalEmbedder } = await importTs('eval-retrieval', ['./main/adapters/embed/local.ts']);
import { build } from 'esbuild';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Where `bundleTs(name, ...)` writes: known in advance, so another process or thread can load it. */
export function bundlePath(name) {
  return join(ROOT, 'node_modules/.cache/cairn-scripts', `${name}.bundle.mjs`);
}

/**
 * Bundles `modules` (paths from the repository root, `./main/...ts`) to one ESM file and returns
 * its path (for a worker thread to load). `modules` may also name single exports:
 * `{ from: './x.ts', names: ['a', 'b'] }`.
 */
export async function bundleTs(name, modules) {
  const outfile = bundlePath(name);
  mkdirSync(dirname(outfile), { recursive: true });
  const contents = modules
    .map((m) => (typeof m === 'string' ? `export * from '${m}';` : `export { ${m.names.join(', ')} } from '${m.from}';`))
    .join('\n');
  await build({
    stdin: { contents, resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    packages: 'external',
    outfile,
    logLevel: 'warning',
  });
  return outfile;
}

/** `bundleTs`, then imports the bundle as one module. */
export async function importTs(name, modules) {
  return import(pathToFileURL(await bundleTs(name, modules)).href);
}

/**
 * Takes `--name value` options and `--flag` switches out of `args` (which is changed), so what
 * is left is positional or unknown.
 */
export function cliArgs(args) {
  return {
    flag(name) {
      const i = args.indexOf(name);
      if (i !== -1) args.splice(i, 1);
      return i !== -1;
    },
    option(name, fallback) {
      const i = args.indexOf(name);
      if (i === -1) return fallback;
      const value = args[i + 1];
      args.splice(i, 2);
      return value;
    },
  };
}
