/**
 * Track B with a chat model: the conversation goes out as numbered lines (`[id] role: text`),
 * chains come back as JSON checked by a zod schema. Message ids the model invents are dropped,
 * and so is a chain left with fewer than two nodes, so every chain still points at real messages.
 * Long conversations go in windows of `windowMessages`, one call each.
 */
import { z } from 'zod';
import { ChainType, type ExtractedChain } from '../../../../shared/types/memory.js';
import type { ChatMessage, LanguageModel } from '../../ports/language-model.js';
import { chainId, chainSummary, round } from './build-chain.js';
import type { OrderedMessage } from './text-units.js';

export const LlmChainsSchema = z.object({
  chains: z.array(
    z.object({
      chain_type: ChainType,
      nodes: z.array(
        z.object({
          role: z.string(),
          text: z.string(),
          message_ids: z.array(z.string()),
          time: z.string().optional(),
        }),
      ),
      confidence: z.number().min(0).max(1).optional(),
    }),
  ),
});
export type LlmChains = z.infer<typeof LlmChainsSchema>;

/** Used when the model gives no confidence of its own. */
const DEFAULT_LLM_CONFIDENCE = 0.7;
/** Characters of one message sent to the model; longer messages are cut. */
const MAX_MESSAGE_CHARS = 1500;

const SYSTEM = [
  'You read a conversation and extract reasoning chains of these types:',
  'CAUSAL: problem → cause → solution or effect. Roles: problem, cause, solution, effect.',
  'LOGIC: premise → inference → conclusion. Roles: premise, inference, conclusion.',
  'OPERATION: ordered actions → result (instructions, steps, recipes). Roles: action, result.',
  'NARRATIVE: events that happened, in order. Role: event.',
  'TIME: time points in the order they are mentioned. Role: moment; put the date or time in "time" (ISO 8601 when you can work it out, else as written).',
  'Each chain has at least two nodes. Each node has a short text in the language of the conversation and the ids of the messages it comes from (ids exactly as given in brackets).',
  'Extract only chains a careful reader would agree are there. Answer with JSON only.',
].join('\n');

export interface LlmExtractOptions {
  types: ChainType[];
  signal?: AbortSignal;
  windowMessages: number;
  createdAt: string;
}

export async function extractWithModel(model: LanguageModel, messages: OrderedMessage[], options: LlmExtractOptions): Promise<ExtractedChain[]> {
  const chains: ExtractedChain[] = [];
  for (let start = 0; start < messages.length; start += options.windowMessages) {
    const window = messages.slice(start, start + options.windowMessages);
    const prompt: ChatMessage[] = [
      { role: 'system', content: SYSTEM },
      {
        role: 'user',
        content: [
          `Chain types wanted: ${options.types.join(', ')}.`,
          'Conversation:',
          ...window.map((m) => `[${m.id}] ${m.speaker ?? m.role}${m.timestamp ? ` (${m.timestamp})` : ''}: ${m.text.slice(0, MAX_MESSAGE_CHARS)}`),
          'Return {"chains": [{"chain_type": string, "nodes": [{"role": string, "text": string, "message_ids": string[], "time"?: string}], "confidence"?: number}]}.',
        ].join('\n'),
      },
    ];
    const { value } = await model.completeJson({ messages: prompt, schema: LlmChainsSchema, schemaName: 'conversation_chains', signal: options.signal, temperature: 0 });
    chains.push(...toChains(value, window, options, model.modelId));
  }
  return chains;
}

function toChains(answer: LlmChains, window: OrderedMessage[], options: LlmExtractOptions, modelId: string): ExtractedChain[] {
  const byId = new Map(window.map((m) => [m.id, m]));
  const wanted = new Set(options.types);
  const out: ExtractedChain[] = [];
  for (const raw of answer.chains) {
    if (!wanted.has(raw.chain_type)) continue;
    const nodes = raw.nodes
      .map((node) => ({ ...node, message_ids: [...new Set(node.message_ids.filter((id) => byId.has(id)))] }))
      .filter((node) => node.message_ids.length > 0 && node.text.trim().length > 0)
      .map((node, i) => ({ id: `n${i + 1}`, role: node.role, text: node.text.trim(), message_ids: node.message_ids, ...(node.time ? { time: node.time } : {}) }));
    if (nodes.length < 2) continue;
    const sources = [...new Set(nodes.flatMap((n) => n.message_ids))].sort((a, b) => (byId.get(a)?.position ?? 0) - (byId.get(b)?.position ?? 0));
    const lastStamp = sources.map((id) => byId.get(id)?.timestamp).filter(Boolean).pop();
    out.push({
      chain_id: chainId(raw.chain_type, nodes),
      chain_type: raw.chain_type,
      content: nodes.map((n) => n.text).join('\n'),
      nodes,
      extraction_confidence: round(raw.confidence ?? DEFAULT_LLM_CONFIDENCE),
      created_at: lastStamp ?? options.createdAt,
      source_message_ids: sources,
      summary: chainSummary(nodes),
      metadata: { method: 'llm', model: modelId, dropped_nodes: raw.nodes.length - nodes.length },
    });
  }
  return out;
}
