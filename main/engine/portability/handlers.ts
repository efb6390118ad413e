/**
 * `export:run` and `import:run` (docs/ARCHITECTURE.md#export-and-import): a workspace's memories,
 * conversations, their chains and clusters, and its ContextFS nodes out as a ContextFS copy, JSON,
 * JSONL or a Markdown bundle, and back in, merged without loss or duplicates. Nothing from
 * `.cairn/` (jobs, queue, index, settings) and no key ever leaves the workspace; the memory history
 * does, since it is the memories' provenance.
 *
 * @example
 * await engine.call('export:run', { format: 'jsonl', out: '/backups/cairn.jsonl' });
 * await other.call('import:run', { path: '/backups/cairn.jsonl' }); // again: everything unchanged
 */
import { isAbsolute, relative, resolve } from 'node:path';
import { CairnError } from '../../../shared/errors.js';
import type { ContextType } from '../../../shared/types/node.js';
import type { CommandHandlers } from '../command-handlers.js';
import type { Clock } from '../ports/clock.js';
import { noopIndex, type ContextIndex } from '../ports/context-index.js';
import type { Logger } from '../ports/logger.js';
import type { ContextFS } from '../tree/context-fs.js';
import { ContextFsMemoryStore } from '../memory/long-term/store.js';
import { collectExport } from './collect.js';
import { mergeContextFs, mergeData } from './merge.js';
import { readImport } from './read.js';
import { writeExport } from './write.js';

/** The part of the engine's Outbox used here. */
interface QueueLike {
  enqueue(message: { uri: string; context_type: ContextType }): Promise<unknown>;
}

export interface PortabilityDeps {
  fs: ContextFS;
  /** The workspace's `.cairn` folder (the memory history lives there). */
  stateDir: string;
  index: ContextIndex | null;
  /** The engine's outbox: memory folders changed by an import are queued for new summaries. */
  outbox: () => Promise<QueueLike>;
  /** Told when something was queued (the engine summarizes in the background when it is set to). */
  onQueued?: () => void;
  logger: Logger;
  clock: Clock;
}

export function portabilityHandlers(deps: PortabilityDeps): Pick<CommandHandlers, 'export:run' | 'import:run'> {
  // Its own store over the same files: like a CLI beside the app, it reads the pages and the
  // history from disk for every change, so the two never disagree about what is there.
  let opened: Promise<ContextFsMemoryStore> | null = null;
  const memories = () =>
    (opened ??= ContextFsMemoryStore.open({
      fs: deps.fs,
      stateDir: deps.stateDir,
      ...(deps.index ? { index: deps.index } : {}),
      logger: deps.logger,
      clock: deps.clock,
      enqueue: async (uri) => {
        await (await deps.outbox()).enqueue({ uri, context_type: 'memory' });
        deps.onQueued?.();
      },
    }).catch((error: unknown) => {
      opened = null;
      throw error;
    }));
  const now = () => deps.clock.now().toISOString();

  return {
    'export:run': async (request) => {
      const started = Date.now();
      const out = resolve(request.out);
      const inside = relative(deps.fs.root, out);
      if (inside === '' || (!inside.startsWith('..') && !isAbsolute(inside))) {
        throw new CairnError('INVALID_INPUT', `${out} is inside the workspace ${deps.fs.root}: export to a path outside it`, { details: { file: out } });
      }
      const scope = request.scope ?? null;
      // A ContextFS copy reads the folders directly; the other formats carry the nodes as records (json, jsonl) or leave them out (markdown).
      const data = await collectExport(deps.fs, memories, scope, now(), { nodes: request.format === 'json' || request.format === 'jsonl' });
      const written = await writeExport(deps.fs, data, request.format, out);
      const analyses = data.analyses as Array<{ chains?: unknown[]; clusters?: unknown[] }>;
      return {
        format: request.format,
        out,
        files: written.files,
        bytes: written.bytes,
        memories: data.memories.length,
        conversations: data.conversations.length,
        chains: analyses.reduce((n, a) => n + (a.chains?.length ?? 0), 0),
        clusters: analyses.reduce((n, a) => n + (a.clusters?.length ?? 0), 0),
        nodes: written.nodes ?? data.nodes.length,
        ms: Date.now() - started,
      };
    },
    'import:run': async (request) => {
      const started = Date.now();
      const source = await readImport(request.path);
      const merge = { fs: deps.fs, index: deps.index ?? noopIndex, memories, clock: deps.clock, logger: deps.logger };
      const counts = source.format === 'contextfs' ? await mergeContextFs(merge, source.root, source.path) : await mergeData(merge, source.data, source.path);
      return { format: source.format, path: source.path, ...counts, ms: Date.now() - started };
    },
  };
}
