/**
 * Markdown (and plain-text) chat logs. A turn starts at a header line in one of three styles:
 *
 *   **User:** text            **Ana**: text          (bold)
 *   ## Assistant              ### User (2024-05-08 13:56)   (heading; the text follows)
 *   User: text                [2024-05-08 13:56] Ana: text  (plain)
 *
 * A timestamp like `[2024-05-08 13:56]` may precede the header or follow the name. Lines that are
 * not headers continue the current turn, and fenced code blocks are never read as headers.
 *
 * "Note: ..." inside an answer looks like a plain header, so a name only counts as a speaker
 * when it is a known role word (User, Assistant, 用户, ...) or starts at least two turns in the file.
 */
import type { Role } from '../../../../shared/types/memory.js';
import { baseId, importError, knownRole, type DraftConversation, type DraftMessage } from './draft.js';

const TS = String.raw`(\d{4}-\d{2}-\d{2}[ T]\d{1,2}:\d{2}(?::\d{2})?(?:Z|[+-]\d{2}:?\d{2})?|\d{1,2}:\d{2}(?::\d{2})?)`;
const LEADING_TS = new RegExp(String.raw`^\[${TS}\]\s*`);
const TRAILING_TS = new RegExp(String.raw`\s*[\[(]${TS}[\])]\s*$`);
const HEADING = /^#{2,6}\s+(.+)$/;
const BOLD = /^\*\*([^*]+)\*\*\s*(.*)$/;
const PLAIN = /^([^:：*#[\]()`<>]{1,40}?)\s*[:：]\s?(.*)$/;
const FENCE = /^\s*(```|~~~)/;

interface Header {
  name: string;
  timestamp?: string;
  rest: string;
}

/** `2024-05-08 13:56` → `2024-05-08T13:56:00` (no zone: the log does not say which). */
function isoOf(raw: string): string {
  const [date, time] = raw.includes('T') ? raw.split('T') : raw.includes(' ') ? raw.split(' ') : [undefined, raw];
  const zone = /(Z|[+-]\d{2}:?\d{2})$/.exec(time ?? '')?.[1] ?? '';
  const clock = (time ?? '').slice(0, (time ?? '').length - zone.length);
  const [h = '0', m = '00', s = '00'] = clock.split(':');
  const hms = `${h.padStart(2, '0')}:${m}:${s}`;
  return date ? `${date}T${hms}${zone}` : `${hms}${zone}`;
}

function nameLike(name: string): boolean {
  // Speakers are short names, not sentences or numbered labels ("Step 1").
  return name.length > 0 && name.length <= 40 && name.split(/\s+/).length <= 4 && !/[\d.,?!;"'`]/.test(name);
}

/** Reads `line` as a turn header, or returns null. */
export function parseHeader(line: string): Header | null {
  let s = line.trim();
  let timestamp: string | undefined;
  const lead = LEADING_TS.exec(s);
  if (lead) {
    timestamp = isoOf(lead[1] as string);
    s = s.slice(lead[0].length);
  }
  let name: string;
  let rest: string;
  const heading = HEADING.exec(s);
  const bold = heading ? null : BOLD.exec(s);
  if (heading) {
    name = heading[1] as string;
    rest = '';
  } else if (bold) {
    const inner = (bold[1] as string).trim();
    let after = bold[2] as string;
    if (/[:：]$/.test(inner)) name = inner.slice(0, -1);
    else {
      name = inner;
      const ts = new RegExp(String.raw`^[\[(]${TS}[\])]\s*`).exec(after);
      if (ts) {
        timestamp ??= isoOf(ts[1] as string);
        after = after.slice(ts[0].length);
      }
      if (!/^[:：]/.test(after)) return null;
      after = after.slice(1);
    }
    rest = after;
  } else {
    const plain = PLAIN.exec(s);
    if (!plain) return null;
    name = plain[1] as string;
    rest = plain[2] as string;
  }
  const trailing = TRAILING_TS.exec(name);
  if (trailing) {
    timestamp ??= isoOf(trailing[1] as string);
    name = name.slice(0, trailing.index);
  }
  name = name.replace(/[:：]\s*$/, '').trim();
  if (!nameLike(name)) return null;
  const restLead = LEADING_TS.exec(rest.trimStart());
  if (restLead) {
    timestamp ??= isoOf(restLead[1] as string);
    rest = rest.trimStart().slice(restLead[0].length);
  }
  return { name, ...(timestamp ? { timestamp } : {}), rest: rest.trim() };
}

function finishText(lines: string[]): string {
  // Drop surrounding blank lines and horizontal rules between turns.
  return lines
    .join('\n')
    .replace(/(?:\n\s*(?:-{3,}|\*{3,}|_{3,})\s*)+$/, '')
    .trim();
}

export function readMarkdownChat(text: string, file: string): DraftConversation {
  const lines = text.split(/\r?\n/);
  // Pass 1: candidate headers (outside code fences) and how often each name starts a turn.
  const headers: (Header | null)[] = [];
  const counts = new Map<string, number>();
  let inFence = false;
  for (const line of lines) {
    if (FENCE.test(line)) {
      inFence = !inFence;
      headers.push(null);
      continue;
    }
    const header = inFence ? null : parseHeader(line);
    headers.push(header);
    if (header) counts.set(header.name, (counts.get(header.name) ?? 0) + 1);
  }
  const isSpeaker = (name: string) => knownRole(name) !== undefined || (counts.get(name) ?? 0) >= 2;

  let title: string | undefined;
  const messages: DraftMessage[] = [];
  let current: { role: Role; speaker?: string; timestamp?: string; lines: string[] } | null = null;
  const flush = () => {
    if (!current) return;
    const body = finishText(current.lines);
    if (body.length > 0) messages.push({ role: current.role, ...(current.speaker ? { speaker: current.speaker } : {}), text: body, ...(current.timestamp ? { timestamp: current.timestamp } : {}) });
  };
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] as string;
    const header = headers[i];
    if (header && isSpeaker(header.name)) {
      flush();
      const role = knownRole(header.name);
      // Role words ("User", "Assistant") are roles, not names; other names are people, read as users.
      current = { role: role ?? 'user', ...(role ? {} : { speaker: header.name }), ...(header.timestamp ? { timestamp: header.timestamp } : {}), lines: header.rest ? [header.rest] : [] };
      continue;
    }
    if (!current) {
      const h1 = /^#\s+(.+)$/.exec(line.trim());
      if (h1 && title === undefined) title = (h1[1] as string).trim();
      continue;
    }
    current.lines.push(line);
  }
  flush();
  if (messages.length === 0) {
    throw importError('INVALID_INPUT', file, "no chat turns found (expected lines like '**User:** ...', '## Assistant' or 'Ana: ...')");
  }
  return { id: baseId(file), ...(title ? { title } : {}), sessions: [{ id: 's1', messages }] };
}
