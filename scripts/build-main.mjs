// Bundles the Node side (CLI, workers, web host, Electron main and preload) with esbuild.
// Dependencies stay external: they are resolved from node_modules at run time, as npm installs them.
import { build } from 'esbuild';
import { existsSync } from 'node:fs';

const entries = {
  cli: 'main/cli/index.ts',
  'engine.worker': 'main/workers/engine.worker.ts',
  'parse.worker': 'main/workers/parse.worker.ts',
  app: 'main/app/index.ts',
  preload: 'main/preload/index.ts',
};
const entryPoints = Object.fromEntries(Object.entries(entries).filter(([, file]) => existsSync(file)));

await build({
  entryPoints,
  outdir: 'dist-main',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
  banner: { js: '#!/usr/bin/env node' },
  outExtension: { '.js': '.js' },
});
