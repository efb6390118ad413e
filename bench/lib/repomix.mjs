// What the benches that compare with repomix share: where Go's source tree is, and repomix's CLI
// script (installed once through npx, not timed, and run with node like our own processes).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** $CAIRN_BENCH_GO_TREE, else the newest golang-src under /usr/share (Debian), else a usual place; null when none. */
export function goTree() {
  if (process.env.CAIRN_BENCH_GO_TREE) return process.env.CAIRN_BENCH_GO_TREE;
  const shared = existsSync('/usr/share') ? readdirSync('/usr/share').filter((d) => /^go-\d/.test(d)).sort() : [];
  for (const dir of [...shared.reverse().map((d) => `/usr/share/${d}/src`), '/usr/lib/go/src', '/usr/share/go/src']) if (existsSync(dir)) return dir;
  return null;
}

/** repomix's CLI script and version, or null when npx cannot install it. */
export function repomixBin() {
  const warm = spawnSync('npx', ['-y', 'repomix@latest', '--version'], { encoding: 'utf8' });
  if (warm.status !== 0) return null;
  const npx = join(process.env.HOME ?? '/root', '.npm/_npx');
  if (!existsSync(npx)) return null;
  for (const dir of readdirSync(npx)) {
    const bin = join(npx, dir, 'node_modules/repomix/bin/repomix.cjs');
    if (existsSync(bin)) return { bin, version: warm.stdout.trim() };
  }
  return null;
}
