/**
 * Where `cairn serve` finds the built renderer (the UI's HTML, scripts and styles): `--renderer`
 * when given, else `dist/renderer` in the folder of the CLI bundle's package.json (the
 * repository, an unpacked package, an npm-installed CLI). Run from the repository with none built yet (`npm run cairn -- serve` on a
 * fresh clone), it builds it once with Vite, saying so in one line; anywhere else it says in one
 * line which command builds it.
 *
 * @example
 * const dir = await findRenderer({ notice: (line) => process.stderr.write(`${line}\n`) });
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CairnError } from '../../shared/errors.js';

export interface FindRendererOptions {
  /** `--renderer`: exactly this folder, never built. */
  explicit?: string;
  /**
   * The folder holding the CLI bundle's package.json (default: found above this module): the
   * repository, an unpacked package or an npm-installed CLI. The renderer is its dist/renderer.
   */
  root?: string;
  /** Told once, before a build starts. */
  notice(line: string): void;
  /** Builds the renderer of `repo` into its dist/renderer (default: Vite, its output kept unless it fails). */
  build?(repo: string): Promise<void>;
}

const BUILD_COMMAND = 'npm run build:web';

export async function findRenderer(options: FindRendererOptions): Promise<string> {
  if (options.explicit !== undefined) {
    const dir = resolve(options.explicit);
    if (isBuilt(dir)) return dir;
    throw new CairnError('NOT_FOUND', `--renderer ${dir} holds no built renderer (no index.html there); build one with \`${BUILD_COMMAND}\` in the Cairn repository`, {
      details: { rendererDir: dir },
    });
  }
  const root = options.root ?? packageRoot(dirname(fileURLToPath(import.meta.url)));
  const target = join(root, 'dist', 'renderer');
  if (isBuilt(target)) return target;
  if (!isRepository(root)) {
    throw new CairnError('NOT_FOUND', `The UI is not built: ${join(target, 'index.html')} is missing; build it with \`${BUILD_COMMAND}\` in the Cairn repository, or point --renderer at a built one`, {
      details: { rendererDir: target },
    });
  }
  options.notice(`cairn: the UI is not built yet; building it once into ${target} (${BUILD_COMMAND})…`);
  await (options.build ?? viteBuild)(root);
  if (!isBuilt(target)) throw new CairnError('IO_ERROR', `Building the UI left no ${join(target, 'index.html')}; run \`${BUILD_COMMAND}\` to see why`);
  return target;
}

function isBuilt(dir: string): boolean {
  return existsSync(join(dir, 'index.html'));
}

/** The nearest folder above `from` with a package.json: sources in main/host/, the bundle in dist-main/ or dist-main/chunks/. */
function packageRoot(from: string): string {
  for (let dir = resolve(from), depth = 0; depth < 4 && dirname(dir) !== dir; dir = dirname(dir), depth += 1) {
    if (existsSync(join(dir, 'package.json'))) return dir;
  }
  return resolve(from, '..');
}

/** A checkout of the repository, with the renderer's sources and Vite installed; a package or an npm-installed CLI ships only the built files. */
function isRepository(root: string): boolean {
  return existsSync(join(root, 'renderer', 'index.html')) && existsSync(join(root, 'vite.config.ts')) && existsSync(viteBin(root));
}

const viteBin = (repo: string) => join(repo, 'node_modules', 'vite', 'bin', 'vite.js');

/** `vite build` in `repo`, quiet: its output is shown only when it fails (stdout stays the URL's). */
function viteBuild(repo: string): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [viteBin(repo), 'build', '--logLevel', 'error'], { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-20_000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', (error) => fail(new CairnError('IO_ERROR', `Could not run Vite to build the UI: ${error.message}`, { cause: error })));
    child.once('exit', (code) => {
      if (code === 0) return done();
      const why = output.split('\n').map((line) => line.trim()).find((line) => /error/i.test(line)) ?? `vite exited with ${code}`;
      fail(new CairnError('IO_ERROR', `Building the UI failed (${why}); run \`${BUILD_COMMAND}\` in ${repo} to see the whole output`));
    });
  });
}
