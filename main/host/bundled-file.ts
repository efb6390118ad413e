/**
 * Finds a file the build writes next to the entry points in `dist-main/` (the workers, the
 * renderer one level up), from code that esbuild may have placed in the entry itself or in a
 * chunk under `dist-main/chunks/`: `import.meta.url` is then one folder deeper.
 *
 * @example
 * new Worker(bundledFile('parse.worker.js'));
 */
import { existsSync } from 'node:fs';

export function bundledFile(relative: string): URL {
  for (const base of ['./', '../']) {
    const url = new URL(base + relative, import.meta.url);
    if (existsSync(url)) return url;
  }
  return new URL('./' + relative, import.meta.url);
}
