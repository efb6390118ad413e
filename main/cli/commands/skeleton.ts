import type { Command } from 'commander';
import { stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { CodeSummaryMode } from '../../../shared/types/ingest.js';
import { CairnError } from '../../../shared/errors.js';
import type { SkeletonFile } from '../../engine/parse/skeleton/index.js';
import { printJson, reportError } from '../output.js';

interface SkeletonFlags {
  mode: string;
  json?: boolean;
  verbose?: boolean;
}

export function registerSkeleton(program: Command): void {
  program
    .command('skeleton')
    .description('Print the tree-sitter code skeleton of a file, or of every supported source file in a folder (Python, JS/TS/TSX, Rust, Go, Java, C, C++)')
    .argument('<path>', 'a source file or a folder')
    .option('--mode <mode>', 'ast (first doc line) | llm | ast_llm (whole docs)', 'ast')
    .option('--json', 'print one JSON document: {"files": [...]}')
    .option('-v, --verbose', 'print the stack of an error')
    .action(async (path: string, flags: SkeletonFlags) => {
      try {
        const mode = CodeSummaryMode.safeParse(flags.mode);
        if (!mode.success) throw new CairnError('INVALID_INPUT', `--mode must be ast, llm or ast_llm, not ${JSON.stringify(flags.mode)}`);
        const [{ scanFolder }, { isSkeletonPath, skeletonsForPaths }] = await Promise.all([import('../../engine/scan/scan-folder.js'), import('../../engine/parse/skeleton/index.js')]);
        const target = resolve(path);
        const info = await stat(target).catch(() => null);
        if (!info) throw new CairnError('NOT_FOUND', `No such file or folder: ${path}`);
        let files: SkeletonFile[];
        if (info.isFile()) files = [{ path: target, relPath: basename(target) }];
        else {
          const scan = await scanFolder(target, { maxFileBytes: 10 * 1024 * 1024, followSymlinks: true });
          files = scan.files.filter((f) => isSkeletonPath(f.relPath)).map((f) => ({ path: f.path, relPath: f.relPath }));
        }
        const result = await skeletonsForPaths(files, { mode: mode.data });
        if (flags.json) return printJson(result);
        const blocks = result.files.map((f) => (f.text ? f.text.trimEnd() : `# ${f.file}\n(no skeleton: ${f.fallback_reason ?? f.fallback ?? 'unsupported'})`));
        process.stdout.write(blocks.length ? blocks.join('\n\n') + '\n' : `(no supported source files under ${path})\n`);
      } catch (error) {
        reportError(error, flags);
      }
    });
}
