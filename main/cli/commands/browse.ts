import type { Command } from 'commander';
import { CairnError } from '../../../shared/errors.js';
import type { TreeNode } from '../../../shared/types/node.js';
import type { Engine } from '../../engine/engine.js';
import { formatBytes, formatCount } from '../../../shared/format.js';
import { oneLine, printJson, reportError, stderrLogger } from '../output.js';
import { formatSkips } from './ingest.js';

interface BrowseFlags {
  workspace?: string;
  json?: boolean;
  level?: string;
  depth?: string;
  abstracts?: boolean;
  verbose?: boolean;
}

/** Runs one read-only engine call and closes the engine. Browsing needs no parse workers. */
async function withEngine<T>(flags: BrowseFlags, work: (engine: Engine) => Promise<T>): Promise<void> {
  let engine;
  try {
    const { openEngine } = await import('../compose.js');
    engine = await openEngine({ workspace: flags.workspace, workers: 0, logger: stderrLogger(flags.verbose === true) });
    await work(engine);
  } catch (error) {
    reportError(error, flags);
  } finally {
    await engine?.dispose();
  }
}

export function registerBrowse(program: Command): void {
  program
    .command('ls')
    .description('List a directory node: its children with their size and L0 abstract')
    .argument('[uri]', 'a ctx:// directory URI', 'ctx://resources/')
    .option('-w, --workspace <dir>', 'workspace folder')
    .option('--json', 'print one JSON document')
    .option('-v, --verbose', 'log more on stderr')
    .action((uri: string, flags: BrowseFlags) =>
      withEngine(flags, async (engine) => {
        const result = await engine.call('fs:ls', { uri });
        if (flags.json) return printJson(result);
        const lines = result.entries.map((e) => {
          const name = e.kind === 'dir' ? `${e.name}/` : e.name;
          const size = e.tokens !== undefined ? `${formatCount(e.tokens)} tok` : e.bytes !== undefined ? formatBytes(e.bytes) : '';
          return `${name.padEnd(40)} ${size.padStart(12)}  ${oneLine(e.abstract ?? '', 80)}`.trimEnd();
        });
        process.stdout.write(lines.length ? lines.join('\n') + '\n' : `(${result.uri} is empty)\n`);
      }),
    );

  program
    .command('tree')
    .description('Print the tree under a node, with L0 abstracts where they exist')
    .argument('[uri]', 'a ctx:// URI', 'ctx://resources/')
    .option('-w, --workspace <dir>', 'workspace folder')
    .option('-d, --depth <n>', 'levels to show', '64')
    .option('--no-abstracts', 'names only')
    .option('--json', 'print one JSON document')
    .option('-v, --verbose', 'log more on stderr')
    .action((uri: string, flags: BrowseFlags) =>
      withEngine(flags, async (engine) => {
        const result = await engine.call('fs:tree', { uri, depth: Number(flags.depth ?? 64) });
        if (flags.json) return printJson(result);
        const lines: string[] = [labelOf(result.root, flags.abstracts !== false)];
        renderTree(result.root, '', lines, flags.abstracts !== false);
        process.stdout.write(lines.join('\n') + '\n');
      }),
    );

  program
    .command('cat')
    .description('Print a node: its content (L2), or its overview (L1) or abstract (L0)')
    .argument('<uri>', 'a ctx:// URI')
    .option('-w, --workspace <dir>', 'workspace folder')
    .option('-l, --level <n>', '0 abstract, 1 overview, 2 content', '2')
    .option('--json', 'print one JSON document')
    .option('-v, --verbose', 'log more on stderr')
    .action((uri: string, flags: BrowseFlags) =>
      withEngine(flags, async (engine) => {
        const level = Number(flags.level ?? 2);
        if (level !== 0 && level !== 1 && level !== 2) throw new CairnError('INVALID_INPUT', `--level must be 0, 1 or 2, not ${JSON.stringify(flags.level)}`);
        const result = await engine.call('fs:read', { uri, level });
        if (flags.json) return printJson(result);
        process.stdout.write(result.content.endsWith('\n') ? result.content : `${result.content}\n`);
      }),
    );

  program
    .command('stat')
    .description('Show a node’s metadata: source, parser, tokens, hashes, summary state, skips')
    .argument('<uri>', 'a ctx:// URI')
    .option('-w, --workspace <dir>', 'workspace folder')
    .option('--json', 'print one JSON document')
    .option('-v, --verbose', 'log more on stderr')
    .action((uri: string, flags: BrowseFlags) =>
      withEngine(flags, async (engine) => {
        const stat = await engine.call('fs:stat', { uri });
        if (flags.json) return printJson(stat);
        const meta = stat.meta;
        const rows: [string, string | undefined][] = [
          ['uri', stat.uri],
          ['kind', stat.kind + (meta?.document ? ' (a split document)' : '')],
          ['source', meta?.source_path],
          ['reason', meta?.reason],
          ['git', meta?.git && `${meta.git.remote} at ${meta.git.ref} (${meta.git.commit.slice(0, 12)})`],
          ['format', meta?.source_format && `${meta.source_format} (parser ${meta.parser})`],
          ['language', meta?.language],
          ['size', stat.kind === 'file' ? formatBytes(stat.bytes) : `${formatCount(stat.children ?? 0)} children`],
          ['tokens', meta?.tokens !== undefined ? formatCount(meta.tokens) : undefined],
          ['lines', meta?.provenance?.lines ? `${meta.provenance.lines[0]}–${meta.provenance.lines[1]}` : undefined],
          ['pages', meta?.provenance?.pages ? `${meta.provenance.pages[0]}–${meta.provenance.pages[1]}` : undefined],
          ['summary', meta?.summary_status && `${meta.summary_status}${meta.summary_reason ? ` (${meta.summary_reason})` : ''}`],
          ['L0', stat.has_abstract ? 'yes' : 'no'],
          ['L1', stat.has_overview ? 'yes' : 'no'],
          ['hash', meta?.source_hash ?? meta?.content_hash ?? meta?.tree_hash],
          ['updated', meta?.updated_at],
        ];
        const out = rows.filter(([, v]) => v !== undefined).map(([k, v]) => `${k.padEnd(9)} ${v}`);
        if (meta?.warnings?.length) out.push(`warnings  ${meta.warnings.join('; ')}`);
        if (meta?.skipped?.length) out.push(...formatSkips(meta.skipped).map((l) => l.slice(2)));
        process.stdout.write(out.join('\n') + '\n');
      }),
    );
}

function labelOf(node: TreeNode, abstracts: boolean): string {
  const name = node.kind === 'dir' ? `${node.name}/` : node.name;
  return abstracts && node.abstract ? `${name}  — ${oneLine(node.abstract, 100)}` : name;
}

function renderTree(node: TreeNode, prefix: string, lines: string[], abstracts: boolean): void {
  const children = node.children ?? [];
  children.forEach((child, i) => {
    const last = i === children.length - 1 && !node.truncated;
    lines.push(`${prefix}${last ? '└── ' : '├── '}${labelOf(child, abstracts)}`);
    if (child.children) renderTree(child, `${prefix}${last ? '    ' : '│   '}`, lines, abstracts);
  });
  if (node.truncated) lines.push(`${prefix}└── … ${formatCount(node.truncated)} more`);
}
