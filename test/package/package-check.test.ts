/**
 * The packaged app keeps every feature (issue 22): `npm run package:check` packages the app with
 * electron-builder, unpacks its app.asar and runs the packaged engine under Node on the sample.
 * A grammar, the lexicon, LanceDB's native module or the sample folder (unpacked) missing from
 * the package fails it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

it('packages an app whose engine makes skeletons, indexes and uses the lexicon', () => {
  // The check packages dist-main/ as it is: other test files run the same build meanwhile.
  if (!existsSync(join(ROOT, 'dist-main/cli.js'))) execFileSync(process.execPath, [join(ROOT, 'scripts/build-main.mjs')], { cwd: ROOT });
  const run = spawnSync(process.execPath, [join(ROOT, 'scripts/package-check.mjs'), '--engine-only', '--no-build'], { cwd: ROOT, encoding: 'utf8' });
  const report = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
  expect(report.problems, run.stderr).toEqual([]);
  expect(report).toMatchObject({ index: true, lexicon: true, unpacked: true, sample: true, parse_errors: 0 });
  expect(report.skeleton_files).toBeGreaterThan(0);
  expect(report.ingest_skeletons).toBeGreaterThan(0);
  expect(run.status).toBe(0);
}, 600_000);
