/**
 * Track B with a chat model: the conversation goes out as numbered lines (`[id] role: text`) in
 * windows of `windowMessages`, one call each; chains come back as JSON checked by a strict zod
 * schema (the shape: docs/ARCHITECTURE.md#the-llm-in-the-memory-engine).
 *
 * A step must be a clause of the message it cites, byte for byte (whitespace aside), as the rule
 * steps are: a step whose text is not in its message is refused (counted, never stored), so is a
 * step citing a message the window does not hold, and a chain left with fewer than two steps is
 * dropped. A step that differs from its message only by case or by quotes, dots or an ellipsis
 * around it is repaired: it takes the message's own text.
 *
 * A window whose call fails (an HTTP error, a timeout, an answer of the wrong shape after the one
 * retry, the token budget) gets the rules' chains for its messages instead; the other windows
 * keep the model's.
 */
import { describeCause, englishCause } from '../../../../shared/llm-cause.js';
import { z } from 'zod';
import { ChainType, type ChainNode, type ExtractedChain } from '../../../../shared/types/memory.js';
import type { ChatMessage } from '../../ports/language-model.js';
import { isCancelled, type MemoryLlm } from '../llm-run.js';
import { chainId, chainSummary, flatText, round } from './build-chain.js';
import type { OrderedMessage } from './text-units.js';

/** Strict: every field required (`time` may be null), no other keys. */
export const LlmChainsSchema = z.strictObject({
  chains: z.array(
    z.strictObject({
      chain_type: ChainType,
      confidence: z.number().min(0).max(1),
      steps: z.array(
        z.strictObject({
          role: z.string(),
          /** Copied from the message: a clause of it, word for word. */
          text: z.string(),
          message_id: z.string(),
          time: z.string().nullable(),
        }),
      ),
    }),
  ),
});
export type LlmChains = z.infer<typeof LlmChainsSchema>;

/** Characters of one message sent to the model; longer messages are cut. */
const MAX_MESSAGE_CHARS = 1500;

const SYSTEM = [
  'You read a conversation and extract reasoning chains of these types:',
  'CAUSAL: problem → cause → solution or effect. Roles: problem, cause, solution, effect.',
  'LOGIC: premise → inference → conclusion. Roles: premise, inference, conclusion.',
  'OPERATION: ordered actions → result (instructions, steps, recipes). Roles: action, result.',
  'NARRATIVE: events that happened, in order. Role: event.',
  'TIME: time points in the order they are mentioned. Role: moment; put the date or time in "time" (ISO 8601 when you can work it out, else as written), null for other steps.',
  'Each chain has at least two steps. The text of a step is copied word for word from one message: a clause or sentence of it, never reworded, shortened or translated.',
  'Each step gives the id of that message exactly as given in brackets.',
  'Extract only chains a careful reader would agree are there. Answer with JSON only.',
].join('\n');

export interface LlmExtractOptions {
  types: ChainType[];
  signal?: AbortSignal;
  windowMessages: number;
  createdAt: string;
  /** The rules' chains for a window's messages: what a window whose call fails gets. */
  rules: (window: OrderedMessage[]) => ExtractedChain[];
}

export async function extractWithModel(llm: MemoryLlm, messages: OrderedMessage[], options: LlmExtractOptions): Promise<ExtractedChain[]> {
  const windows: OrderedMessage[][] = [];
  for (let start = 0; start < messages.length; start += options.windowMessages) windows.push(messages.slice(start, start + options.windowMessages));
  const perWindow = await Promise.all(windows.map((window) => extractWindow(llm, window, options)));
  return perWindow.flat();
}

async function extractWindow(llm: MemoryLlm, window: OrderedMessage[], options: LlmExtractOptions): Promise<ExtractedChain[]> {
  const prompt: ChatMessage[] = [
    { role: 'system', content: SYSTEM },
    {
      role: 'user',
      content: [
        `Chain types wanted: ${options.types.join(', ')}.`,
        'Conversation:',
        ...window.map((m) => `[${m.id}] ${m.speaker ?? m.role}${m.timestamp ? ` (${m.timestamp})` : ''}: ${m.text.slice(0, MAX_MESSAGE_CHARS)}`),
        'Return {"chains": [{"chain_type": string, "confidence": number, "steps": [{"role": string, "text": string, "message_id": string, "time": string | null}]}]}.',
      ].join('\n'),
    },
  ];
  try {
    const { value } = await llm.model.completeJson({ messages: prompt, schema: LlmChainsSchema, schemaName: 'conversation_chains', signal: options.signal, temperature: 0 });
    llm.answered('chains');
    return toChains(value, window, options, llm);
  } catch (error) {
    if (isCancelled(error, options.signal)) throw error;
    const cause = llm.fellBack('chains', error);
    return options.rules(window).map((chain) => ({ ...chain, metadata: { ...chain.metadata, fallback: describeCause(cause, englishCause) } }));
  }
}

function toChains(answer: LlmChains, window: OrderedMessage[], options: LlmExtractOptions, llm: MemoryLlm): ExtractedChain[] {
  const byId = new Map(window.map((m) => [m.id, m]));
  const wanted = new Set(options.types);
  const out: ExtractedChain[] = [];
  for (const raw of answer.chains) {
    if (!wanted.has(raw.chain_type)) continue;
    const nodes: ChainNode[] = [];
    for (const step of raw.steps) {
      const message = byId.get(step.message_id);
      const text = message ? clauseOf(message.text, step.text) : undefined;
      if (text === undefined || nodes.some((n) => n.text === text)) continue;
      nodes.push({ id: `n${nodes.length + 1}`, role: step.role.trim() || 'step', text, message_ids: [step.message_id], ...(step.time ? { time: step.time } : {}) });
    }
    const refused = raw.steps.length - nodes.length;
    if (refused > 0) llm.refusedSteps(refused);
    if (nodes.length < 2) continue;
    const sources = [...new Set(nodes.flatMap((n) => n.message_ids))].sort((a, b) => (byId.get(a)?.position ?? 0) - (byId.get(b)?.position ?? 0));
    const lastStamp = sources.map((id) => byId.get(id)?.timestamp).filter(Boolean).pop();
    out.push({
      chain_id: chainId(raw.chain_type, nodes),
      chain_type: raw.chain_type,
      content: nodes.map((n) => n.text).join('\n'),
      nodes,
      extraction_confidence: round(raw.confidence),
      created_at: lastStamp ?? options.createdAt,
      source_message_ids: sources,
      summary: chainSummary(nodes),
      metadata: { method: 'llm', model: llm.model.modelId, refused_steps: refused },
      extractor: llm.extractor,
    });
  }
  return out;
}

/** Quotes, dots and ellipses a model puts around a quoted clause. */
const WRAPPING = /^[\s"'“”‘’「」『』«»…]+|[\s"'“”‘’「」『』«»….]+$/gu;

/**
 * The step's text as it stands in the message (whitespace flattened), or undefined when it is not
 * there: as given, else without quotes or dots around it and ignoring case (repaired to the
 * message's own text).
 */
export function clauseOf(message: string, step: string): string | undefined {
  const source = flatText(message);
  const exact = flatText(step);
  if (exact !== '' && source.includes(exact)) return exact;
  const bare = exact.replace(WRAPPING, '');
  if (bare.length < 2) return undefined;
  const at = source.toLowerCase().indexOf(bare.toLowerCase());
  // toLowerCase keeps lengths for the scripts messages use here; a changed length means no repair.
  if (at < 0 || source.toLowerCase().length !== source.length || bare.toLowerCase().length !== bare.length) return undefined;
  return source.slice(at, at + bare.length);
}
