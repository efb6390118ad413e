/**
 * Cairn as a Model Context Protocol server (`cairn mcp`, docs/ARCHITECTURE.md#mcp): an agent searches the
 * context tree, reads nodes at any level, lists directories, asks for a chain-intact context pack
 * under a token budget, lists and reads skills, and (only with `allowWrite`) remembers and forgets
 * long-term memories, adds skills and adds resources. Every tool is the engine's contract
 * underneath (search:query, fs:read, fs:ls, context:pack, skills:*, memories:commit,
 * memories:forget, ingest:start); inputs are checked with zod, and any failure comes back as a
 * tool error (`isError`) whose text names the code and the reason.
 *
 * Resources: every `ctx://` node, through the template `ctx://{+path}`. Reading a file gives its
 * content (L2), a directory its overview (L1) and its children; `?level=0`, `?level=1` or
 * `?level=2` asks for exactly the abstract, the overview or the content. The resource list holds
 * the scope roots and their direct children; deeper nodes are reached with the template or `ls`.
 *
 * Tools and resources sit on the SDK's low-level handlers (reached through `McpServer.server`) so
 * a refused write can say why it was refused, and tool errors carry our error codes.
 *
 * @example
 * const server = createMcpServer(engine, { allowWrite: false });
 * await server.connect(new StdioServerTransport());
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
  type Resource,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { commands, MemoryCandidateSchema } from '../../shared/contracts/api.js';
import { CairnError, serializeError } from '../../shared/errors.js';
import { MemoryCategory } from '../../shared/types/memory.js';
import type { NodeEntry } from '../../shared/types/node.js';
import type { Engine } from '../engine/engine.js';
import { sha256 } from '../engine/util/hash.js';

export interface McpServerOptions {
  /** Lists and runs `remember` and `forget`; without it they are refused. */
  allowWrite: boolean;
  version?: string;
}

const MEMORIES_ROOT = 'ctx://user/memories/';
const BROWSABLE_SCOPES = ['resources', 'user', 'agent', 'session'] as const;
const Scope = z.enum(BROWSABLE_SCOPES);
// The tools' inputs take their limits from the engine commands they call (the contract).
const read = commands['fs:read'].request.shape;
const search = commands['search:query'].request.shape;
const pack = commands['context:pack'].request.shape;
const forget = commands['memories:forget'].request.shape;
const candidate = MemoryCandidateSchema.shape;
const skillsRead = commands['skills:read'].request.shape;
const skillsAdd = commands['skills:add'].request.shape;
const ingestStart = commands['ingest:start'].request.shape;
const Uri = read.uri.describe('a ctx:// URI, e.g. ctx://resources/notes/ (a trailing / marks a directory)');

interface ToolSpec {
  name: string;
  title: string;
  description: string;
  input: z.ZodObject;
  write: boolean;
  readOnlyHint: boolean;
  run(args: never, signal: AbortSignal): Promise<CallToolResult>;
}

function tool<S extends z.ZodObject>(spec: Omit<ToolSpec, 'input' | 'run'> & { input: S; run(args: z.output<S>, signal: AbortSignal): Promise<CallToolResult> }): ToolSpec {
  return spec as unknown as ToolSpec;
}

function json(value: Record<string, unknown>, text = JSON.stringify(value, null, 2)): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: value };
}

function toolError(code: string, message: string): CallToolResult {
  return { content: [{ type: 'text', text: `${code}: ${message}` }], isError: true };
}

function mimeOf(uri: string): string {
  if (uri.endsWith('/') || /\.(md|markdown)$/i.test(uri)) return 'text/markdown';
  if (/\.json$/i.test(uri)) return 'application/json';
  return 'text/plain';
}

/** The tools, each a thin layer over one engine command. */
function tools(engine: Engine): ToolSpec[] {
  return [
    tool({
      name: 'search',
      title: 'Search the context',
      description:
        'Hybrid (full-text + vector) search over the context tree, memories and conversations. Returns `ranked`: one result per document, best first, with its title, score, scope, `weak` (true below the relevance floor `weak_below`: probably not relevant), `also_at` (copies of the same content elsewhere) and its hits, best first (its best section, then the other sections and its own abstract/overview). Each hit names its ctx:// URI, level (0 abstract, 1 overview, 2 content), score, the section heading, a snippet and its provenance: the source file and lines, or the conversation message ids it came from. A conversation message is followed by the neighbouring messages it brought in as its context (before or after it), each with `neighbour_of`: that message\'s id.',
      input: z.object({
        query: search.query.describe('what to look for'),
        scope: Scope.optional().describe('only this scope'),
        level: search.level.describe('only hits at this level: 0 abstract, 1 overview, 2 content'),
        top_k: search.topK.describe('how many hits'),
        mode: search.mode.describe('hybrid (default), fts, vector or hierarchical'),
      }),
      write: false,
      readOnlyHint: true,
      run: async (args, signal) => {
        const { ranked, weak_below } = await engine.call(
          'search:query',
          { query: args.query, mode: args.mode, topK: args.top_k, ...(args.scope ? { scope: args.scope } : {}), ...(args.level !== undefined ? { level: args.level } : {}) },
          { signal },
        );
        return json({ ranked, weak_below });
      },
    }),
    tool({
      name: 'read',
      title: 'Read a node',
      description: 'Read a ctx:// node at a level: 0 its abstract (a line), 1 its overview (structured Markdown), 2 its full content (of a file, or for the folder of a split document the whole document). Other directories have levels 0 and 1.',
      input: z.object({ uri: Uri, level: read.level.describe('0 abstract, 1 overview, 2 content (default)') }),
      write: false,
      readOnlyHint: true,
      run: async (args, signal) => {
        const result = await engine.call('fs:read', { uri: args.uri, level: args.level }, { signal });
        return { content: [{ type: 'text', text: result.content }], structuredContent: { uri: result.uri, level: result.level, content: result.content } };
      },
    }),
    tool({
      name: 'ls',
      title: 'List a directory',
      description: 'List the children of a ctx:// directory (scope roots: ctx://resources/, ctx://user/, ctx://agent/, ctx://session/), each with its kind, abstract and size where known.',
      input: z.object({ uri: Uri }),
      write: false,
      readOnlyHint: true,
      run: async (args, signal) => {
        const result = await engine.call('fs:ls', { uri: args.uri }, { signal });
        const lines = result.entries.map((e: NodeEntry) => `${e.uri}${e.abstract ? `  ${e.abstract.replace(/\s+/g, ' ').slice(0, 160)}` : ''}`);
        return json({ uri: result.uri, entries: result.entries }, lines.length ? lines.join('\n') : `(${result.uri} is empty)`);
      },
    }),
    tool({
      name: 'context',
      title: 'Context pack',
      description:
        'The context that matters for a query within a token budget: relevant search results (above the relevance floor), memories and the reasoning chains of their conversations, compressed without cutting a chain (kept whole or replaced by its summary) or a sentence; for "what did we decide / what was the fix" questions the decisions and outcomes come first. Returns the pack as Markdown within the budget: each block opens with a short reference ([3]) and one legend at the end maps the references to ctx:// URIs, lines and message ids (also given as `legend`), plus its numbers.',
      input: z.object({
        query: pack.query.describe('the question the context is for'),
        budget: pack.budget.describe('tokens the pack may take, references and legend included'),
        strategy: pack.strategy.describe('chain_integrity (default), chain_aware or priority'),
        scope: Scope.optional().describe('only this scope'),
        top_k: pack.topK.describe('search hits gathered before compressing'),
      }),
      write: false,
      readOnlyHint: true,
      run: async (args, signal) => {
        const pack = await engine.call(
          'context:pack',
          { query: args.query, budget: args.budget, strategy: args.strategy, topK: args.top_k, ...(args.scope ? { scope: args.scope } : {}) },
          { signal },
        );
        const r = pack.result;
        const numbers = {
          budget: pack.budget,
          tokens: pack.tokens,
          blocks: pack.blocks.length,
          kept: r.kept.length,
          dropped: r.dropped.length,
          chain_summaries: r.replaced.length,
          original_tokens: r.original_tokens,
          compressed_tokens: r.compressed_tokens,
          intact_chains: r.intact_chains,
          // Broken: cut (some of its blocks kept, not all) or left out whole for the budget.
          broken_chains: r.broken_chains,
          cut_chains: r.chains.filter((c) => c.status === 'partial').map((c) => c.id),
        };
        const footer =
          `${numbers.blocks} blocks gathered, ${numbers.kept} kept, ${numbers.chain_summaries} chain summaries; ` +
          `${numbers.original_tokens} -> ${numbers.compressed_tokens} tokens of blocks, ${numbers.tokens} with references and legend (budget ${numbers.budget}); chains intact ${r.intact_chains.length}, cut ${numbers.cut_chains.length}, left out ${r.broken_chains.length - numbers.cut_chains.length}`;
        return {
          content: [{ type: 'text', text: pack.markdown }, { type: 'text', text: footer }],
          structuredContent: { markdown: pack.markdown, legend: pack.legend, ...numbers },
        };
      },
    }),
    tool({
      name: 'remember',
      title: 'Remember',
      description:
        'Keep a long-term memory (deduplicated against similar ones: it may be added, merged into an existing memory, or found already known). Name the conversation messages it comes from when you have them.',
      input: z.object({
        category: MemoryCategory.describe(`one of ${MemoryCategory.options.join(', ')}`),
        title: candidate.title.describe('one line a person can read in a list'),
        content: candidate.content,
        keywords: candidate.keywords,
        message_ids: z.array(z.string().min(1).max(1000)).max(1000).optional().describe('the conversation messages this comes from'),
        conversation_id: z.string().min(1).max(1000).optional(),
      }),
      write: true,
      readOnlyHint: false,
      run: async (args, signal) => {
        // Without message ids the memory still names where it came from: this agent's call, by its content.
        const messageIds = args.message_ids?.length ? args.message_ids : [`mcp:${sha256(`${args.category}\n${args.title}\n${args.content}`).slice(0, 16)}`];
        const { changes } = await engine.call(
          'memories:commit',
          {
            candidates: [
              {
                category: args.category,
                title: args.title,
                content: args.content,
                keywords: args.keywords,
                message_ids: messageIds,
                conversation_id: args.conversation_id ?? '',
                confidence: 0.8,
              },
            ],
          },
          { signal },
        );
        // The category folders get their new L0/L1 now, so ls and search show them right away.
        await engine.call('summarize:run', { uri: MEMORIES_ROOT }, { signal });
        const change = changes[0]!;
        const memory = change.after ?? change.before;
        return json({ op: change.op, id: change.memory_id, uri: memory ? `${MEMORIES_ROOT}${memory.category}/${memory.id}.md` : null, reason: change.reason, memory: memory ?? null });
      },
    }),
    tool({
      name: 'forget',
      title: 'Forget',
      description: 'Delete a long-term memory by id (mem_…); its text stays readable in the memory history, with the reason.',
      input: z.object({ id: forget.id.describe('the memory id, e.g. mem_0123456789abcdef'), reason: forget.reason }),
      write: true,
      readOnlyHint: false,
      run: async (args, signal) => {
        const { change } = await engine.call('memories:forget', { id: args.id, ...(args.reason ? { reason: args.reason } : {}) }, { signal });
        await engine.call('summarize:run', { uri: MEMORIES_ROOT }, { signal });
        return json({ op: change.op, id: change.memory_id, reason: change.reason });
      },
    }),
    // Skills (ctx://agent/skills/{name}/, main/engine/skills) and adding trees, each summarized at once so ls and search show it.
    tool({
      name: 'list_skills',
      title: 'List skills',
      description: 'The skills in ctx://agent/skills/: instructions an agent can use. Each with its name, URI and one-line description (the SKILL.md front matter, else its abstract). Read one with read_skill.',
      input: z.object({}),
      write: false,
      readOnlyHint: true,
      run: async (_args, signal) => {
        const { skills } = await engine.call('skills:list', {}, { signal });
        const lines = skills.map((s) => `${s.name}: ${s.description ?? '(no description yet)'}`);
        return json({ skills }, lines.length ? lines.join('\n') : '(no skills yet)');
      },
    }),
    tool({
      name: 'read_skill',
      title: 'Read a skill',
      description: "A skill's SKILL.md, whole, and the URIs of its files (helper scripts, references), which `read` gives.",
      input: z.object({ name: skillsRead.name.describe('the skill, as list_skills names it') }),
      write: false,
      readOnlyHint: true,
      run: async (args, signal) => {
        const skill = await engine.call('skills:read', { name: args.name }, { signal });
        const files = skill.files.map((f) => `- ${f.uri}`).join('\n');
        return { content: [{ type: 'text', text: skill.content }, { type: 'text', text: `Files of ${skill.skill.uri}:\n${files}` }], structuredContent: skill };
      },
    }),
    tool({
      name: 'add_skill',
      title: 'Add a skill',
      description: 'Write a skill to ctx://agent/skills/{name}/ from a folder holding a SKILL.md (and helper files) or a SKILL.md alone, on this machine; adding it again updates it in place. It is summarized and searchable at once.',
      input: z.object({
        path: skillsAdd.path.describe('the skill folder, or its SKILL.md'),
        name: skillsAdd.name.describe("the skill's name (default: the SKILL.md's front-matter name, else the folder's name)"),
        reason: skillsAdd.reason.describe('why it is added'),
      }),
      write: true,
      readOnlyHint: false,
      run: async (args, signal) => {
        const added = await engine.call('skills:add', { path: args.path, ...(args.name ? { name: args.name } : {}), ...(args.reason ? { reason: args.reason } : {}) }, { signal });
        await engine.call('summarize:run', { uri: added.result.root }, { signal });
        const { skill } = await engine.call('skills:read', { name: added.skill.name }, { signal });
        return json({ skill, files: added.result.files, changed: added.result.changed, removed: added.result.removed });
      },
    }),
    tool({
      name: 'add_resource',
      title: 'Add a resource',
      description: 'Ingest a folder or file on this machine into ctx://resources/ (re-adding the same source updates it in place), with why it is added; it is summarized and searchable at once.',
      input: z.object({
        path: ingestStart.path.describe('a folder or a file'),
        name: z.string().min(1).max(200).optional().describe('its node name (default: the folder or file name)'),
        reason: z.string().trim().min(1).max(2000).optional().describe("why it is added, kept on the root's meta"),
      }),
      write: true,
      readOnlyHint: false,
      run: async (args, signal) => {
        const result = await engine.call('ingest:start', { path: args.path, options: { ...(args.name ? { name: args.name } : {}), ...(args.reason ? { reason: args.reason } : {}) } }, { signal });
        await engine.call('summarize:run', { uri: result.root }, { signal });
        return json({ root: result.root, files: result.files, changed: result.changed, removed: result.removed, skipped: result.skipped.length, reason: args.reason ?? null });
      },
    }),
  ];
}

function describeTool(spec: ToolSpec): Tool {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(spec.input, { io: 'input' }) as Record<string, unknown>;
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema: schema as Tool['inputSchema'],
    annotations: { title: spec.title, readOnlyHint: spec.readOnlyHint, destructiveHint: spec.name === 'forget', openWorldHint: false },
  };
}

/** `ctx://a/b?level=1` → the node URI and the level asked for (none: the node's natural level). */
export function parseResourceUri(raw: string): { uri: string; level: 0 | 1 | 2 | null } {
  const [path = '', query] = raw.split('?', 2) as [string, string | undefined];
  let uri = path;
  // Clients that go through a URL parser send names percent-encoded; ctx:// URIs are plain text.
  if (/%[0-9a-f]{2}/i.test(path)) {
    try {
      uri = decodeURI(path);
    } catch {
      uri = path;
    }
  }
  if (query === undefined || query === '') return { uri, level: null };
  const params = new URLSearchParams(query);
  const unknown = [...params.keys()].filter((k) => k !== 'level');
  if (unknown.length > 0) throw new CairnError('INVALID_INPUT', `${raw}: unknown query parameter ${unknown.map((k) => JSON.stringify(k)).join(', ')} (only ?level=0|1|2)`);
  const level = params.get('level');
  if (level !== '0' && level !== '1' && level !== '2') throw new CairnError('INVALID_INPUT', `${raw}: level must be 0, 1 or 2, not ${JSON.stringify(level)}`);
  return { uri, level: Number(level) as 0 | 1 | 2 };
}

async function readResource(engine: Engine, raw: string, signal: AbortSignal): Promise<string> {
  const { uri, level } = parseResourceUri(raw);
  if (level !== null) return (await engine.call('fs:read', { uri, level }, { signal })).content;
  const stat = await engine.call('fs:stat', { uri }, { signal });
  if (stat.kind === 'file') return (await engine.call('fs:read', { uri: stat.uri, level: 2 }, { signal })).content;
  // A directory has no content of its own: its overview (or abstract) and what it holds.
  const summary = stat.has_overview
    ? (await engine.call('fs:read', { uri: stat.uri, level: 1 }, { signal })).content
    : stat.has_abstract
      ? (await engine.call('fs:read', { uri: stat.uri, level: 0 }, { signal })).content
      : `# ${stat.uri}\n\n(not summarized yet)\n`;
  const { entries } = await engine.call('fs:ls', { uri: stat.uri }, { signal });
  const children = entries.map((e) => `- ${e.uri}${e.abstract ? `: ${e.abstract.replace(/\s+/g, ' ').trim()}` : ''}`);
  return `${summary.trimEnd()}\n\n## Contents\n\n${children.length ? children.join('\n') : '(empty)'}\n`;
}

function asResource(uri: string, name: string, abstract?: string): Resource {
  return { uri, name, mimeType: mimeOf(uri), ...(abstract ? { description: abstract.replace(/\s+/g, ' ').trim().slice(0, 300) } : {}) };
}

/** The scope roots that exist and their direct children. */
async function listResources(engine: Engine, signal: AbortSignal): Promise<Resource[]> {
  const out: Resource[] = [];
  for (const scope of BROWSABLE_SCOPES) {
    const root = `ctx://${scope}/`;
    if ((await engine.fs.kindOf(root)) !== 'dir') continue;
    out.push(asResource(root, scope));
    const { entries } = await engine.call('fs:ls', { uri: root }, { signal });
    for (const entry of entries) out.push(asResource(entry.uri, entry.name, entry.abstract));
  }
  return out;
}

function errorText(error: unknown): { code: string; message: string } {
  const serialized = serializeError(error);
  return { code: serialized.code, message: serialized.message };
}

/** An MCP server over an open engine; connect it to a transport. The engine stays the caller's to dispose. */
export function createMcpServer(engine: Engine, options: McpServerOptions): McpServer {
  const mcp = new McpServer(
    { name: 'cairn', title: 'Cairn', version: options.version ?? '0.1.0' },
    {
      capabilities: { tools: {}, resources: {} },
      instructions:
        'Cairn holds a layered context tree under ctx:// URIs (resources/, user/ with memories, agent/, session/ with conversations). ' +
        'Use `search` to find nodes and the messages behind them, `read` to read a node at level 0 (abstract), 1 (overview) or 2 (content), ' +
        '`ls` to browse, and `context` to get what matters for a question within a token budget.' +
        ' `list_skills` and `read_skill` give the skills (instructions for agents).' +
        (options.allowWrite
          ? ' `remember` keeps a long-term memory and `forget` deletes one; `add_skill` writes a skill and `add_resource` adds a folder or file.'
          : ' This server is read-only.'),
    },
  );
  const all = tools(engine);
  const offered = all.filter((t) => options.allowWrite || !t.write);
  const server = mcp.server;

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: offered.map(describeTool) }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const name = request.params.name;
    const spec = all.find((t) => t.name === name);
    if (!spec) throw new McpError(ErrorCode.InvalidParams, `Unknown tool "${name}" (this server offers ${offered.map((t) => t.name).join(', ')})`);
    if (spec.write && !options.allowWrite) {
      return toolError('READ_ONLY', `${name} is refused: this server is read-only (start it with \`cairn mcp --allow-write\` to let agents write memories, skills and resources)`);
    }
    const parsed = spec.input.safeParse(request.params.arguments ?? {});
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(arguments)'}: ${issue.message}`);
      return toolError('INVALID_INPUT', `invalid ${name} arguments: ${problems.join('; ')}`);
    }
    try {
      return await spec.run(parsed.data as never, extra.signal);
    } catch (error) {
      const { code, message } = errorText(error);
      return toolError(code, message);
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, async (_request, extra) => ({ resources: await listResources(engine, extra.signal) }));

  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      {
        uriTemplate: 'ctx://{+path}',
        name: 'ctx-node',
        title: 'A node of the context tree',
        description:
          "Any ctx:// node: a file gives its content (L2), a directory its overview (L1) and its children. Add ?level=0 for the abstract, ?level=1 for the overview, ?level=2 for a file's content.",
        mimeType: 'text/markdown',
      },
    ],
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const raw = request.params.uri;
    try {
      const text = await readResource(engine, raw, extra.signal);
      return { contents: [{ uri: raw, mimeType: mimeOf(parseResourceUri(raw).uri), text }] };
    } catch (error) {
      const { code, message } = errorText(error);
      throw new McpError(ErrorCode.InvalidParams, `${code}: ${message}`, { code });
    }
  });

  return mcp;
}
