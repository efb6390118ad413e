/**
 * A conversation as Markdown a person can read (the L2 content of `ctx://session/{id}/` nodes).
 * Each message shows who spoke, when, and its id, so a memory's provenance can be found in it.
 */
import type { Conversation, Message, Session } from '../../../../shared/types/memory.js';

function messageMarkdown(message: Message): string {
  const who = message.speaker ? `${message.speaker} (${message.role})` : message.role;
  const meta = [message.timestamp, `\`${message.id}\``].filter(Boolean).join(' · ');
  return `**${who}** · ${meta}\n\n${message.text.trim()}\n`;
}

function sessionMarkdown(session: Session): string {
  const heading = `## Session ${session.id}${session.started_at ? ` · ${session.started_at}` : ''}`;
  return [heading, '', ...session.messages.map(messageMarkdown)].join('\n');
}

/**
 * Renders the whole conversation, or one session of it when `sessionId` is given.
 *
 * @example
 * renderConversationMarkdown(conversation, { sessionId: 's1' })
 */
export function renderConversationMarkdown(conversation: Conversation, options: { sessionId?: string } = {}): string {
  const sessions = options.sessionId ? conversation.sessions.filter((s) => s.id === options.sessionId) : conversation.sessions;
  const count = sessions.reduce((n, s) => n + s.messages.length, 0);
  const facts = [
    `- conversation: \`${conversation.id}\``,
    conversation.source_format ? `- imported from: ${conversation.source_format}` : '',
    `- sessions: ${sessions.length}, messages: ${count}`,
  ].filter(Boolean);
  return [`# ${conversation.title ?? conversation.id}`, '', ...facts, '', ...sessions.map(sessionMarkdown)].join('\n').trimEnd() + '\n';
}
