/**
 * The `memories:*` commands of the contract, over one ContextFsMemoryStore that opens on the
 * first call (so engines that never touch memories never read the history). The engine spreads
 * these into its handler table; search goes through its own `search:query` handler, narrowed to
 * `ctx://user/memories/`.
 *
 * @example
 * const handlers = { ...memoryHandlers({ fs, stateDir, index, outbox, logger, clock, search }) };
 * await handlers['memories:list']({ limit: 10 }, ctx);
 */
import { parseRequest, type CommandResponse, type ParsedCommandRequest } from '../../../../shared/contracts/api.js';
import { CairnError } from '../../../../shared/errors.js';
import type { ContextType } from '../../../../shared/types/node.js';
import { uriName } from '../../../../shared/uri.js';
import type { CommandHandlers } from '../../command-handlers.js';
import type { Clock } from '../../ports/clock.js';
import type { ContextIndex } from '../../ports/context-index.js';
import type { Logger } from '../../ports/logger.js';
import type { ContextFS } from '../../tree/context-fs.js';
import type { MemoryLlm } from '../llm-run.js';
import { MEMORIES_ROOT } from './memory-file.js';
import { ContextFsMemoryStore } from './store.js';

export type MemoryCommand = 'memories:list' | 'memories:get' | 'memories:edit' | 'memories:forget' | 'memories:history' | 'memories:search' | 'memories:commit';

type SearchHandler = CommandHandlers['search:query'];

interface QueuedMessage {
  id: string;
  status: string;
}

/** The part of the engine's Outbox used here. */
interface QueueLike {
  enqueue(message: { uri: string; context_type: ContextType }): Promise<QueuedMessage>;
  onChange(listener: (change: { op: string; message: QueuedMessage }) => void): () => void;
}

export interface MemoryHandlerDeps {
  fs: ContextFS;
  /** The workspace's `.cairn` folder. */
  stateDir: string;
  index: ContextIndex | null;
  /** The engine's outbox, opened on first use (it takes the workspace's queue lock). */
  outbox: () => Promise<QueueLike>;
  /** The engine's `search:query` handler. */
  search: SearchHandler;
  /** Told when a change queued a directory for the DAG (the engine summarizes in the background when it is set to). */
  onQueued?: () => void;
  /** Starts a run of the engine's LLM for one commit (null when none is configured): dedup decisions then ask it. */
  startLlm?: () => MemoryLlm | null;
  logger: Logger;
  clock: Clock;
}

/** Search hits taken beyond topK, so the category and root directories' L0/L1 hits can be dropped and topK pages remain. */
const DIRECTORY_HEADROOM = 8;

/** `memories:commit` in a run the caller started (sessions:commit shares its analysis' run); null: the rules decide. */
export type CommitWithLlm = (request: ParsedCommandRequest<'memories:commit'>, ctx: Parameters<CommandHandlers['memories:commit']>[1], llm: MemoryLlm | null) => Promise<CommandResponse<'memories:commit'>>;

export function memoryHandlers(deps: MemoryHandlerDeps): Pick<CommandHandlers, MemoryCommand> & { commitWithLlm: CommitWithLlm } {
  let opened: Promise<ContextFsMemoryStore> | null = null;
  const requeueing = new Set<string>();
  const store = () =>
    (opened ??= ContextFsMemoryStore.open({
      fs: deps.fs,
      stateDir: deps.stateDir,
      ...(deps.index ? { index: deps.index } : {}),
      logger: deps.logger,
      clock: deps.clock,
      enqueue: async (uri) => {
        const queue = await deps.outbox();
        const message = await queue.enqueue({ uri, context_type: 'memory' });
        // A run already summarizing the folder may have read it before this change: queue it
        // again once that run lets go of it, or the change would wait for the next one.
        if (message.status === 'processing' && !requeueing.has(uri)) {
          requeueing.add(uri);
          const off = queue.onChange((change) => {
            if (change.message.id !== message.id || change.message.status === 'processing') return;
            off();
            requeueing.delete(uri);
            queue.enqueue({ uri, context_type: 'memory' }).then(
              () => deps.onQueued?.(),
              (error: unknown) => deps.logger.warn(`Could not queue ${uri} again after a change: ${String(error)}`),
            );
          });
        }
        deps.onQueued?.();
      },
    }).catch((error: unknown) => {
      opened = null;
      throw error;
    }));

  const found = async (id: string) => {
    const memory = await (await store()).get(id);
    if (!memory) throw new CairnError('NOT_FOUND', `No memory ${id}: it does not exist or was forgotten (see its history)`, { details: { id } });
    return memory;
  };

  const commitWithLlm: CommitWithLlm = async (request, ctx, llm) => ({
    changes: await (await store()).commit(request.candidates, { signal: ctx.signal, dryRun: request.dry_run === true, ...(llm ? { llm } : {}) }),
  });

  return {
    commitWithLlm,
    'memories:list': async (request) => ({ memories: await (await store()).list(request) }),
    'memories:get': async (request) => ({ memory: await found(request.id) }),
    'memories:edit': async (request) => ({ change: await (await store()).edit(request.id, request.patch) }),
    'memories:forget': async (request) => ({ change: await (await store()).forget(request.id, request.reason) }),
    'memories:history': async (request) => ({ changes: await (await store()).history(request.id) }),
    'memories:commit': async (request, ctx) => commitWithLlm(request, ctx, deps.startLlm?.() ?? null),
    'memories:search': async (request, ctx): Promise<CommandResponse<'memories:search'>> => {
      const query: ParsedCommandRequest<'search:query'> = parseRequest('search:query', {
        query: request.query,
        mode: request.mode,
        topK: request.topK + DIRECTORY_HEADROOM,
        uriPrefix: MEMORIES_ROOT,
      });
      const { hits } = await deps.search(query, ctx);
      const memories = await store();
      const out: CommandResponse<'memories:search'>['hits'] = [];
      for (const hit of hits) {
        if (out.length >= request.topK) break;
        const name = uriName(hit.uri);
        if (!name.endsWith('.md')) continue;
        // A page removed since it was indexed (by another process) is not a hit.
        const memory = await memories.get(name.slice(0, -3)).catch(() => null);
        if (memory) out.push({ ...hit, memory });
      }
      return { hits: out };
    },
  };
}
