/**
 * The Markdown bundle a person reads: index.md, one page per memory category, one per
 * conversation with its chains and topic clusters. Every memory and chain names the messages it
 * came from, and every message shows its id, so provenance can be followed by eye.
 */
import type { ExtractedChain, LongTermMemory, MemoryCategory, TopicCluster } from '../../../shared/types/memory.js';
import { renderConversationMarkdown } from '../memory/sessions/render-markdown.js';
import { safeSegment } from '../memory/sessions/workspace-store.js';
import { BUNDLE_DATA_FILE, type ExportData } from './format.js';

export interface BundlePage {
  /** Path inside the bundle folder, with `/`. */
  path: string;
  text: string;
}

export function conversationPagePath(id: string): string {
  return `conversations/${safeSegment(id)}.md`;
}

function memorySection(m: LongTermMemory): string {
  const from = m.conversation_id ? ` in conversation \`${m.conversation_id}\`` : '';
  const lines = [
    `## ${m.title.replace(/\s+/g, ' ').trim()}`,
    '',
    m.content.trim(),
    '',
    `- id: \`${m.id}\``,
    ...(m.keywords.length ? [`- keywords: ${m.keywords.join(', ')}`] : []),
    `- from messages: ${m.message_ids.map((id) => `\`${id}\``).join(', ') || '(none)'}${from}`,
    ...(m.chain_ids?.length ? [`- chains: ${m.chain_ids.map((id) => `\`${id}\``).join(', ')}`] : []),
    `- confidence ${m.confidence.toFixed(2)}; created ${m.created_at}; updated ${m.updated_at}`,
  ];
  return lines.join('\n') + '\n';
}

function chainSection(c: ExtractedChain): string {
  const steps = c.nodes.map((n, i) => `${i + 1}. **${n.role}**: ${n.text.replace(/\s+/g, ' ').trim()} (${n.message_ids.map((id) => `\`${id}\``).join(', ')})`);
  return [`### ${c.chain_type} \`${c.chain_id}\``, '', c.summary, '', ...steps, '', `Confidence ${c.extraction_confidence.toFixed(2)}; from messages ${c.source_message_ids.map((id) => `\`${id}\``).join(', ')}.`, ''].join('\n');
}

function clusterSection(c: TopicCluster): string {
  const messages = [...new Set(c.items.flatMap((i) => i.message_ids))];
  return [
    `### ${c.topic_label} \`${c.cluster_id}\``,
    '',
    `- bucket: ${c.dominant_bucket}; ${c.items.length} items; priority ${c.priority.toFixed(2)}, coherence ${c.coherence.toFixed(2)}`,
    ...(c.keywords.length ? [`- keywords: ${c.keywords.join(', ')}`] : []),
    `- messages: ${messages.map((id) => `\`${id}\``).join(', ')}`,
    '',
  ].join('\n');
}

export function renderBundle(data: ExportData): BundlePage[] {
  const pages: BundlePage[] = [];
  const byCategory = new Map<MemoryCategory, LongTermMemory[]>();
  for (const m of data.memories) byCategory.set(m.category, [...(byCategory.get(m.category) ?? []), m]);
  const categories = [...byCategory.keys()].sort();
  for (const category of categories) {
    const list = byCategory.get(category)!;
    pages.push({ path: `memories/${category}.md`, text: [`# Memories: ${category}`, '', `${list.length} memories.`, '', ...list.map(memorySection)].join('\n') });
  }
  const analyses = new Map(data.analyses.map((a) => [a.conversation_id, a]));
  for (const conversation of data.conversations) {
    const analysis = analyses.get(conversation.id) as { chains?: ExtractedChain[]; clusters?: TopicCluster[] } | undefined;
    const parts = [renderConversationMarkdown(conversation)];
    if (analysis?.chains?.length) parts.push('', '## Chains', '', ...analysis.chains.map(chainSection));
    if (analysis?.clusters?.length) parts.push('', '## Topic clusters', '', ...analysis.clusters.map(clusterSection));
    pages.push({ path: conversationPagePath(conversation.id), text: parts.join('\n').trimEnd() + '\n' });
  }
  const index = [
    '# Cairn export',
    '',
    `Exported ${data.exported_at}${data.scope ? ` (scope ${data.scope})` : ''}: ${data.memories.length} memories, ${data.conversations.length} conversations, ` +
      `${data.analyses.reduce((n, a) => n + ((a as { chains?: unknown[] }).chains?.length ?? 0), 0)} chains.`,
    '',
    `\`${BUNDLE_DATA_FILE}\` holds the same data for \`cairn import\`; edits to these pages are not read back.`,
    '',
    '## Memories',
    '',
    ...(categories.length ? categories.map((c) => `- [${c}](memories/${c}.md) (${byCategory.get(c)!.length})`) : ['(none)']),
    '',
    '## Conversations',
    '',
    ...(data.conversations.length
      ? data.conversations.map((c) => {
          const chains = (analyses.get(c.id) as { chains?: unknown[] } | undefined)?.chains?.length ?? 0;
          const messages = c.sessions.reduce((n, s) => n + s.messages.length, 0);
          return `- [${(c.title ?? c.id).replace(/[[\]]/g, '')}](${conversationPagePath(c.id)}): ${messages} messages, ${chains} chains`;
        })
      : ['(none)']),
    '',
  ];
  pages.unshift({ path: 'index.md', text: index.join('\n') });
  return pages;
}
