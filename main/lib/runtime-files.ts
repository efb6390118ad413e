/**
 * Where Cairn finds the files it reads at run time, in every layout it runs from:
 *
 * - the repository (sources under vitest): the lexicon in `assets/`, packages in `node_modules/`;
 * - the build in `dist-main/`: code that esbuild placed in an entry or in a chunk under
 *   `dist-main/chunks/` (then `import.meta.url` is one folder deeper); the build copies the
 *   lexicon to `dist-main/lexicon/`;
 * - a packaged app: the same `dist-main/` and `node_modules/` inside `resources/app.asar`, with
 *   the native modules and `.wasm` files unpacked beside it in `app.asar.unpacked/`
 *   (electron-builder.yml);
 * - a CLI installed with npm: `dist-main/` with the dependencies in the package's `node_modules/`.
 *
 * Every path returned is one a plain `fs` read can open: for a file inside `app.asar` that has an
 * unpacked copy, the copy (Electron's asar support is not there for every reader).
 *
 * @example
 * new Worker(bundledFile('parse.worker.js'));
 * readFileSync(assetFile('lexicon/wordnet-en.txt', "The local embedder's lexicon"));
 * readFile(packageFile('tree-sitter-python/tree-sitter-python.wasm'));
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CairnError } from '../../shared/errors.js';

const ASAR = `${sep}app.asar${sep}`;

/** A file the build writes next to the entry points in `dist-main/` (the workers; the renderer one level up). */
export function bundledFile(relative: string): URL {
  const found = nextToBundle(relative).find((url) => existsSync(url));
  return pathToFileURL(readablePath(fileURLToPath(found ?? new URL('./' + relative, import.meta.url))));
}

/**
 * A data file of `assets/` (the lexicon): the copy the build put in `dist-main/`, else the
 * repository's own (from the sources, or from the working folder for scripts that bundle the
 * code elsewhere: bench/lib/bundle.mjs). `what` names it in the error.
 *
 * @throws CairnError `NOT_FOUND` naming every place looked in.
 */
export function assetFile(relative: string, what: string): string {
  const places = [...nextToBundle(relative), new URL(`../../assets/${relative}`, import.meta.url)].map((url) => fileURLToPath(url));
  places.push(join(process.cwd(), 'assets', relative));
  const candidates = [...new Set(places)];
  const found = candidates.find((path) => existsSync(path));
  if (!found) {
    throw new CairnError('NOT_FOUND', `${what} (${relative}) is missing from this installation; looked in ${candidates.join(', ')}`, {
      // Not a name the person typed: the installation is incomplete (cli/errors.ts shows this advice).
      details: { candidates, advice: 'Reinstall Cairn; in a source checkout, run `npm run build:main`, which copies assets/ into dist-main/' },
    });
  }
  return readablePath(found);
}

/**
 * A file shipped in an installed package (`tree-sitter-python/tree-sitter-python.wasm`), found
 * the way Node finds the package's modules.
 *
 * @throws CairnError `NOT_FOUND` when the package or the file is not installed.
 */
export function packageFile(specifier: string): string {
  let path: string;
  try {
    path = createRequire(import.meta.url).resolve(specifier);
  } catch (cause) {
    throw new CairnError('NOT_FOUND', `${specifier} is not installed`, { cause, details: { specifier } });
  }
  return readablePath(path);
}

/** A path inside `app.asar` as its unpacked copy in `app.asar.unpacked`, when there is one. */
export function readablePath(path: string): string {
  const at = path.indexOf(ASAR);
  if (at < 0) return path;
  const unpacked = `${path.slice(0, at)}${sep}app.asar.unpacked${sep}${path.slice(at + ASAR.length)}`;
  return existsSync(unpacked) ? unpacked : path;
}

function nextToBundle(relative: string): URL[] {
  return ['./', '../'].map((base) => new URL(base + relative, import.meta.url));
}
