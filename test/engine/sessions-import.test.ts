import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CairnError } from '../../shared/errors.js';
import { Conversation } from '../../shared/types/memory.js';
import { importConversations, parseConversations, renderConversationMarkdown } from '../../main/engine/memory/sessions/index.js';

const DIR = join(import.meta.dirname, '../fixtures/conversations');
const FORMATS = join(DIR, 'formats');

async function importError(input: Parameters<typeof importConversations>[0]): Promise<CairnError> {
  try {
    await importConversations(input);
  } catch (error) {
    if (CairnError.is(error)) return error;
    throw error;
  }
  throw new Error('expected the import to fail');
}

describe('session import', () => {
  it('reads the Cairn JSON fixtures with their ids, speakers and sessions', async () => {
    for (const name of ['deploy-staging-failing', 'choosing-a-database', 'yunnan-trip', 'linear-algebra-review']) {
      const [conversation, ...rest] = await importConversations(join(DIR, `${name}.json`));
      expect(rest).toHaveLength(0);
      expect(Conversation.parse(conversation)).toEqual(conversation);
      expect(conversation?.id).toBe(name);
      expect(conversation?.source_format).toBe('cairn');
      const labels = JSON.parse(readFileSync(join(DIR, `${name}.labels.json`), 'utf8')) as Record<string, string>;
      const ids = conversation!.sessions.flatMap((s) => s.messages.map((m) => m.id));
      expect(ids).toEqual(Object.keys(labels));
    }
    const [study] = await importConversations(join(DIR, 'linear-algebra-review.json'));
    expect(study?.sessions.map((s) => s.id)).toEqual(['s1', 's2']);
    expect(study?.sessions[1]?.messages[0]?.id).toBe('s2:1');
  });

  it('fills missing ids in Cairn JSON with {session}:{n} and accepts role aliases', () => {
    const text = JSON.stringify({ title: 'mini', sessions: [{ id: 'a', messages: [{ role: 'human', text: 'hi' }, { id: 'kept', role: 'AI', content: 'hello' }, { role: 'user', text: 'bye' }] }] });
    const [conversation] = parseConversations(text, 'mini.json');
    expect(conversation?.id).toBe('mini');
    expect(conversation?.sessions[0]?.messages.map((m) => [m.id, m.role])).toEqual([
      ['a:1', 'user'],
      ['kept', 'assistant'],
      ['a:3', 'user'],
    ]);
  });

  it('reads JSONL: session_id splits sessions, ids are kept or generated, content parts are text', async () => {
    const [conversation] = await importConversations(join(FORMATS, 'chat.jsonl'));
    expect(conversation?.source_format).toBe('jsonl');
    expect(conversation?.sessions.map((s) => [s.id, s.messages.map((m) => m.id)])).toEqual([
      ['monday', ['m-001', 'm-002', 'monday:3']],
      ['tuesday', ['tuesday:1', 'tuesday:2']],
    ]);
    const monday = conversation!.sessions[0]!;
    expect(monday.started_at).toBe('2024-05-06T08:00:00Z');
    expect(monday.messages[0]).toMatchObject({ role: 'user', speaker: 'Ana', timestamp: '2024-05-06T08:00:00Z' });
    expect(monday.messages[1]?.text).toBe('Sure. Are they JPEGs with EXIF data, or screenshots?');
    expect(monday.messages[2]?.text).toBe('JPEGs from my camera, about 400 of them.');
  });

  it('reads Markdown chats in bold, heading and plain styles with timestamps', async () => {
    const [bold] = await importConversations(join(FORMATS, 'chat-bold.md'));
    expect(bold?.title).toBe('Fixing the flaky login test');
    expect(bold?.sessions[0]?.messages.map((m) => [m.id, m.role, m.timestamp])).toEqual([
      ['s1:1', 'user', '2024-05-08T13:56:00'],
      ['s1:2', 'assistant', '2024-05-08T13:57:00'],
      ['s1:3', 'user', '2024-05-08T13:59:00'],
      ['s1:4', 'assistant', undefined],
    ]);
    expect(bold?.sessions[0]?.messages[0]?.text).toBe('The login test fails about one run in ten on CI.\nIt passes every time on my laptop.');

    const [headings] = await importConversations(join(FORMATS, 'chat-headings.md'));
    expect(headings?.title).toBe('周末读书计划');
    const messages = headings!.sessions[0]!.messages;
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[1]?.text).toContain('- 读的时候记一下人物关系');
    expect(messages[1]?.timestamp).toBe('2024-03-02T10:01:00');

    const [plain] = await importConversations(join(FORMATS, 'chat-plain.md'));
    const turns = plain!.sessions[0]!.messages;
    expect(turns.map((m) => m.speaker)).toEqual(['Ana', 'Ben', 'Ana', 'Ben']);
    // "Note:" appears once and is not a role word, so it continues Ana's turn.
    expect(turns[2]?.text).toBe("The big one on the third floor, we'll be eight people.\nNote: bring the projector adapter.");
    expect(turns[3]?.timestamp).toBe('2024-05-08T14:02:00');
  });

  it('reads the ChatGPT export along the current branch and drops hidden and non-text parts', async () => {
    const conversations = await importConversations(join(FORMATS, 'chatgpt-export.json'));
    expect(conversations.map((c) => c.id)).toEqual(['6a1f0c2e-0000-4000-8000-000000000001', '6a1f0c2e-0000-4000-8000-000000000002']);
    const [sourdough, quick] = conversations;
    expect(sourdough?.title).toBe('Sourdough starter help');
    expect(sourdough?.source_format).toBe('chatgpt');
    const messages = sourdough!.sessions[0]!.messages;
    // current_node is n5b: the edited branch n4b → n5b is kept, n4a → n5a is not; n0 is a hidden system message.
    expect(messages.map((m) => m.id)).toEqual(['n1', 'n2', 'n3', 'n4b', 'n5b']);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(messages[3]?.text).toBe('Use 1:5:5 (starter:flour:water by weight) so it has more food between feedings.');
    expect(messages[0]?.timestamp).toBe('2024-05-08T13:56:00.500Z');
    expect(quick?.sessions[0]?.messages.map((m) => m.text)).toEqual(['What is 2 to the power of 10?', '1024.']);
  });

  it('reads the Claude export with uuids, content parts and senders', async () => {
    const [bike, translate] = await importConversations(join(FORMATS, 'claude-export.json'));
    expect(bike?.title).toBe('Bike commute route');
    expect(bike?.source_format).toBe('claude');
    const messages = bike!.sessions[0]!.messages;
    expect(messages.map((m) => [m.id, m.role])).toEqual([
      ['c-1', 'user'],
      ['c-2', 'assistant'],
      ['c-3', 'user'],
    ]);
    expect(messages[1]?.text).toBe('Start two days a week and pick quiet streets over the fastest route.\n\nBring a spare tube.');
    expect(messages[0]?.timestamp).toBe('2024-04-02T07:30:00.000000Z');
    expect(translate?.title).toBeUndefined();
    expect(translate?.sessions[0]?.messages[0]?.text).toBe('帮我把这句话翻译成英文：今天天气很好。');
  });

  it('detects from content when the name says little, and honours a format override', async () => {
    const jsonl = readFileSync(join(FORMATS, 'chat.jsonl'));
    const [fromTxt] = await importConversations({ bytes: jsonl, name: 'export.txt' });
    expect(fromTxt?.source_format).toBe('jsonl');
    expect(fromTxt?.id).toBe('export');
    const claude = readFileSync(join(FORMATS, 'claude-export.json'), 'utf8');
    const [fromBytes] = await importConversations({ bytes: claude, name: 'conversations.json' });
    expect(fromBytes?.source_format).toBe('claude');
    const markdown = '**User:** hello\n**Assistant:** hi there';
    const [forced] = await importConversations({ bytes: markdown, name: 'chat.log' }, { format: 'markdown' });
    expect(forced?.sessions[0]?.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('reads a chat saved in Latin-1, and says what it assumed', async () => {
    const bytes = new Uint8Array(Buffer.from('**User:** Caf\xe9 ou th\xe9 ?\n\n**Assistant:** Un caf\xe9, merci.\n', 'latin1'));
    const warnings: string[] = [];
    const [conversation] = await importConversations({ bytes, name: 'chat.md' }, { onWarning: (message) => warnings.push(message) });
    expect(conversation?.sessions[0]?.messages.map((m) => m.text)).toEqual(['Café ou thé ?', 'Un café, merci.']);
    expect(warnings).toEqual([expect.stringMatching(/^chat\.md: .*Windows-1252/)]);
  });

  it('refuses bad input with a code and a message naming the file and the reason', async () => {
    const broken = await importError(join(FORMATS, 'bad/broken-line.jsonl'));
    expect(broken.code).toBe('PARSE_FAILED');
    expect(broken.message).toMatch(/broken-line\.jsonl:3: invalid JSON/);
    expect(broken.details).toMatchObject({ line: 3 });

    const noRole = await importError(join(FORMATS, 'bad/missing-role.jsonl'));
    expect(noRole.code).toBe('INVALID_INPUT');
    expect(noRole.message).toMatch(/missing-role\.jsonl:2: missing or unknown "role"/);

    const prose = await importError(join(FORMATS, 'bad/prose.md'));
    expect(prose.code).toBe('INVALID_INPUT');
    expect(prose.message).toMatch(/prose\.md: no chat turns found/);

    const truncated = await importError(join(FORMATS, 'bad/truncated.json'));
    expect(truncated.code).toBe('PARSE_FAILED');
    expect(truncated.message).toMatch(/truncated\.json: invalid JSON/);

    const other = await importError({ bytes: '{"name": "not a chat"}', name: 'settings.json' });
    expect(other.code).toBe('INVALID_INPUT');
    expect(other.message).toMatch(/^settings\.json: JSON that is not a known conversation format/);

    const empty = await importError({ bytes: '  \n', name: 'empty.jsonl' });
    expect(empty.message).toBe('empty.jsonl: the file is empty');

    const duplicate = await importError({ bytes: '{"id":"x","role":"user","text":"a"}\n{"id":"x","role":"assistant","text":"b"}', name: 'dup.jsonl' });
    expect(duplicate.code).toBe('INVALID_INPUT');
    expect(duplicate.message).toMatch(/dup\.jsonl: duplicate message id "x"/);

    const missing = await importError(join(FORMATS, 'no-such-file.json'));
    expect(missing.code).toBe('NOT_FOUND');
    expect(missing.message).toContain('no-such-file.json');
  });

  it('renders a conversation, or one session of it, as Markdown with speakers, times and ids', async () => {
    const [study] = await importConversations(join(DIR, 'linear-algebra-review.json'));
    const all = renderConversationMarkdown(study!);
    expect(all.startsWith('# 线性代数期末复习：特征值与特征向量\n')).toBe(true);
    expect(all).toContain('## Session s1 · 2024-12-10T19:05:00Z');
    expect(all).toContain('## Session s2');
    expect(all).toContain('**小周 (user)** · 2024-12-10T19:05:00Z · `s1:1`');
    expect(all).toContain('下周三线性代数期末考试');
    const second = renderConversationMarkdown(study!, { sessionId: 's2' });
    expect(second).not.toContain('## Session s1');
    expect(second).toContain('- sessions: 1, messages: 12');
  });
});
