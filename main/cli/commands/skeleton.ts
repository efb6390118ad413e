import type { Command } from 'commander';
import { once } from 'node:events';
import { stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { CodeSummaryMode } from '../../../shared/types/ingest.js';
import { CairnError } from '../../../shared/errors.js';
import type { SkeletonFile, SkeletonJson } from '../../engine/parse/skeleton/index.js';
import { printJson, reportError, startJsonDocument } from '../output.js';
import { streamSkeletons } from '../skeleton-pool.js';

interface SkeletonFlags {
  mode: string;
  workers?: string;
  json?: boolean;
  verbose?: boolean;
}

/** Writes to stdout, waiting when its buffer is full (a slow pipe), so output is never all held. */
async function write(text: string): Promise<void> {
  if (!process.stdout.write(text)) await once(process.stdout, 'drain');
}

/** A file of the JSON document as `JSON.stringify({ files }, null, 2)` lays it out (strings hold no raw newlines). */
function jsonEntry(file: SkeletonJson, first: boolean): string {
  return `${first ? '' : ',\n'}${JSON.stringify(file, null, 2).replace(/^/gm, '    ')}`;
}

function textBlock(file: SkeletonJson): string {
  return file.text ? file.text.trimEnd() : `# ${file.file}\n(no skeleton: ${file.fallback_reason ?? file.fallback ?? 'unsupported'})`;
}

export function registerSkeleton(program: Command): void {
  program
    .command('skeleton')
    .description('Print the tree-sitter code skeleton of a file, or of every supported source file in a folder (Python, JS/TS/TSX, Rust, Go, Java, C, C++)')
    .argument('<path>', 'a source file or a folder')
    .option('--mode <mode>', 'ast (first doc line) | llm | ast_llm (whole docs)', 'ast')
    .option('--workers <n>', 'parse worker threads for a folder (0 = in this thread; default: one per core)')
    .option('--json', 'print one JSON document: {"files": [...]}')
    .option('-v, --verbose', 'print the stack of an error')
    .action(async (path: string, flags: SkeletonFlags) => {
      try {
        const mode = CodeSummaryMode.safeParse(flags.mode);
        if (!mode.success) throw new CairnError('INVALID_INPUT', `--mode must be ast, llm or ast_llm, not ${JSON.stringify(flags.mode)}`);
        const [{ scanFolder }, { isSkeletonPath }] = await Promise.all([import('../../engine/scan/scan-folder.js'), import('../../engine/parse/skeleton/detect.js')]);
        const target = resolve(path);
        const info = await stat(target).catch(() => null);
        if (!info) throw new CairnError('NOT_FOUND', `No such file or folder: ${path}`);
        const workers = flags.workers === undefined ? undefined : Number(flags.workers);
        if (workers !== undefined && !(Number.isInteger(workers) && workers >= 0)) throw new CairnError('INVALID_INPUT', `--workers must be a whole number, 0 or more, not ${JSON.stringify(flags.workers)}`);
        // A folder's files are handed over as the scan's promise: the workers start while it runs.
        const files: SkeletonFile[] | Promise<SkeletonFile[]> = info.isFile()
          ? [{ path: target, relPath: basename(target) }]
          : scanFolder(target, { maxFileBytes: 10 * 1024 * 1024, followSymlinks: true, acceptFile: isSkeletonPath }).then((scan) => scan.files.map((f) => ({ path: f.path, relPath: f.relPath })));
        // Printed as the skeletons come, in the order of the scan; the same bytes as one document.
        let count = 0;
        await streamSkeletons(files, {
          mode: mode.data,
          ...(workers === undefined ? {} : { workers }),
          onFile: (file) => {
            const first = count === 0;
            count += 1;
            if (first && flags.json) startJsonDocument();
            return write(flags.json ? `${first ? '{\n  "files": [\n' : ''}${jsonEntry(file, first)}` : `${first ? '' : '\n\n'}${textBlock(file)}`);
          },
        });
        if (flags.json && count === 0) printJson({ files: [] });
        else if (flags.json) await write('\n  ]\n}\n');
        else await write(count ? '\n' : `(no supported source files under ${path})\n`);
      } catch (error) {
        reportError(error, flags);
      }
    });
}
