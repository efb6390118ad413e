// Bundles the Node side (CLI, workers, web host, Electron main and preload) with esbuild.
// Dependencies stay external: they are resolved from node_modules at run time, as npm installs them.
import { build } from 'esbuild';
import { cpSync, existsSync, rmSync } from 'node:fs';

const entries = {
  cli: 'main/cli/launcher.ts',
  'engine.worker': 'main/workers/engine.worker.ts',
  'parse.worker': 'main/workers/parse.worker.ts',
  'track.worker': 'main/workers/track.worker.ts',
  'index.worker': 'main/workers/index.worker.ts',
  'skeleton.worker': 'main/workers/skeleton.worker.ts',
  app: 'main/app/index.ts',
};
const entryPoints = Object.fromEntries(Object.entries(entries).filter(([, file]) => existsSync(file)));

// Chunk names carry a content hash: clear the old ones so they do not pile up.
rmSync('dist-main/chunks', { recursive: true, force: true });

await build({
  entryPoints,
  outdir: 'dist-main',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  // Commands import their engine parts on demand; splitting keeps those in chunks loaded only
  // then, so `cairn --help` or `cairn ls` does not load LanceDB, the parsers or the OpenAI SDK.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
  banner: { js: '#!/usr/bin/env node' },
  outExtension: { '.js': '.js' },
});

// A sandboxed preload cannot load ES modules and may require nothing but `electron`: it is built
// on its own as CommonJS (it imports only types from shared/, so nothing else ends up in it).
if (existsSync('main/preload/index.ts')) {
  await build({
    entryPoints: ['main/preload/index.ts'],
    outfile: 'dist-main/preload.cjs',
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external: ['electron'],
    sourcemap: 'linked',
    logLevel: 'warning',
  });
}

// The local embedder's lexicon (main/adapters/embed/lexicon.ts) is read at run time next to the
// bundle, so the CLI and the packaged app find it without the repository's assets/ folder.
cpSync('assets/lexicon', 'dist-main/lexicon', { recursive: true });

// The sample folder Home's "Try the sample" ingests (main/engine/ingest/sample.ts), found next to
// the bundle the same way, so it is there in a package and an npm-installed CLI too.
rmSync('dist-main/sample', { recursive: true, force: true });
cpSync('assets/sample', 'dist-main/sample', { recursive: true });
