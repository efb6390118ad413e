/**
 * Scripted answers of the memory engine's four LLM calls, for the mock OpenAI server
 * (mock-openai-server.ts): each request is answered by its schema's name, from what the prompt
 * shows, in the shapes of docs/ARCHITECTURE.md#the-llm-in-the-memory-engine.
 *
 * - bucket_classification: every message of the batch in `bucket`, reason "scripted";
 * - topic_labels: "Topic {index}" for each topic;
 * - conversation_chains: one CAUSAL chain per window from its first messages, the steps quoting
 *   each message's first sentence (the first one in capitals and in quotes, to be repaired), and
 *   one altered step that quotes nothing (to be refused);
 * - memory_decision: "none" with the first memory shown, reason "already known".
 *
 * `fault(request)` may answer a request instead (an HTTP 500, a bad answer, a hang).
 *
 * @example
 * server.handle(memoryAnswers({ fault: (r) => (isFirstBucketBatch(r) ? reply.serverError(500) : undefined) }));
 */
import { reply, type MockHandler, type MockReply, type MockRequest } from './mock-openai-server.js';

export const ALTERED_STEP = 'the database silently corrupted every booking';

export interface MemoryAnswerOptions {
  bucket?: string;
  fault?: (request: MockRequest) => MockReply | undefined;
}

/** The schema a JSON request asks for (response_format json_schema), or undefined. */
export function schemaNameOf(request: MockRequest): string | undefined {
  const format = request.body?.response_format as { json_schema?: { name?: string } } | undefined;
  return format?.json_schema?.name;
}

/** The request's first user message: the prompt (a retry adds another after it). */
export function promptOf(request: MockRequest): string {
  return request.messages.find((m) => m.role === 'user')?.content ?? '';
}

/** Lines `[id] speaker: text` of a chain prompt. */
function promptMessages(prompt: string): Array<{ id: string; text: string }> {
  return [...prompt.matchAll(/^\[([^\]]+)\] [^:]+?(?: \([^)]*\))?: (.*)$/gm)].map((m) => ({ id: m[1]!, text: m[2]! }));
}

function firstSentence(text: string): string {
  return (text.split(/(?<=[.?!])\s/)[0] ?? text).replace(/[.?!]$/, '');
}

export function memoryAnswers(options: MemoryAnswerOptions = {}): MockHandler {
  return (request) => {
    const fault = options.fault?.(request);
    if (fault) return fault;
    const prompt = promptOf(request);
    switch (schemaNameOf(request)) {
      case 'bucket_classification': {
        const n = Number(/Classify these (\d+) messages/.exec(prompt)?.[1] ?? 0);
        return reply.json({ items: Array.from({ length: n }, (_, index) => ({ index, bucket: options.bucket ?? 'DECISION_CONTEXT', confidence: 0.9, reason: 'scripted' })) });
      }
      case 'topic_labels': {
        const n = Number(/Label these (\d+) topics/.exec(prompt)?.[1] ?? 0);
        return reply.json({ labels: Array.from({ length: n }, (_, index) => ({ index, label: `Topic ${index}` })) });
      }
      case 'conversation_chains': {
        const [first, second, third] = promptMessages(prompt);
        if (!first || !second || !third) return reply.json({ chains: [] });
        const steps = [
          { role: 'problem', text: `"${firstSentence(first.text).toUpperCase()}."`, message_id: first.id, time: null },
          { role: 'cause', text: ALTERED_STEP, message_id: second.id, time: null },
          { role: 'cause', text: firstSentence(second.text), message_id: second.id, time: null },
          { role: 'solution', text: firstSentence(third.text), message_id: third.id, time: null },
        ];
        return reply.json({ chains: [{ chain_type: 'CAUSAL', confidence: 0.8, steps }] });
      }
      case 'memory_decision': {
        const shown = JSON.parse(prompt) as { existing: Array<{ id: string }> };
        return reply.json({ decision: 'none', target_id: shown.existing[0]?.id ?? null, title: null, content: null, reason: 'already known' });
      }
      default:
        return reply.status(400, { message: `unexpected request for ${schemaNameOf(request) ?? 'no schema'}` });
    }
  };
}
