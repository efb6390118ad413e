/**
 * ingest:sample: where the sample folder Cairn ships is, so Home's "Try the sample" can ingest it
 * like any folder (with ingest:start, its progress and its result). The folder is `assets/sample`
 * in the repository and `dist-main/sample` in the build, a package and an npm-installed CLI
 * (scripts/build-main.mjs copies it; main/lib/runtime-files.ts finds it in each).
 */
import { assetFile } from '../../lib/runtime-files.js';
import type { CommandHandlers } from '../command-handlers.js';

export function sampleHandlers(): Pick<CommandHandlers, 'ingest:sample'> {
  return {
    'ingest:sample': async () => ({ path: assetFile('sample', 'The sample folder') }),
  };
}
