// `node scripts/check-recall-dev.mjs`: checks the hand-written conversational recall dev set
// (test/fixtures/recall-dev/, issue 19) before anyone scores on it. For each {id}.json with its
// {id}.questions.json: ids unique and shaped s{n}:{k}, session and message dates increasing, two
// named speakers, at least 15 sessions, every evidence id a real message, the questions counted
// per kind, and a README row with the split its id gives. Prints one line per conversation; exits
// 1 with one line per problem.
//
// Usage: node scripts/check-recall-dev.mjs [DIR]   (DIR defaults to test/fixtures/recall-dev)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIR = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'fixtures', 'recall-dev');
const KINDS = ['single-hop', 'multi-hop', 'temporal', 'open-domain'];
const MIN_SESSIONS = 15;

const problems = [];
const ids = readdirSync(DIR).filter((f) => f.endsWith('.json') && !f.endsWith('.questions.json')).map((f) => f.slice(0, -5)).sort();
if (ids.length === 0) problems.push(`no conversations in ${DIR}`);

for (const id of ids) {
  const bad = (what) => problems.push(`${id}: ${what}`);
  const conv = JSON.parse(readFileSync(join(DIR, `${id}.json`), 'utf8'));
  if (conv.id !== id) bad(`id "${conv.id}" differs from the file name`);
  if (!conv.title) bad('no title');
  const sessions = conv.sessions ?? [];
  if (sessions.length < MIN_SESSIONS) bad(`${sessions.length} sessions, fewer than ${MIN_SESSIONS}`);
  const messageIds = new Set();
  const speakers = new Set();
  let lastSession = -Infinity;
  let lastMessage = -Infinity;
  sessions.forEach((s, i) => {
    if (s.id !== `s${i + 1}`) bad(`session ${i + 1} has id "${s.id}"`);
    const start = Date.parse(s.started_at);
    if (!(start > lastSession)) bad(`${s.id} starts at "${s.started_at}", not after the session before`);
    lastSession = start;
    (s.messages ?? []).forEach((m, k) => {
      if (m.id !== `${s.id}:${k + 1}`) bad(`message ${k + 1} of ${s.id} has id "${m.id}"`);
      if (messageIds.has(m.id)) bad(`message id ${m.id} twice`);
      messageIds.add(m.id);
      if (m.role !== 'user' || !m.speaker) bad(`${m.id} needs role "user" and a speaker`);
      speakers.add(m.speaker);
      if (!m.text?.trim()) bad(`${m.id} has no text`);
      const t = Date.parse(m.timestamp);
      if (!(t >= start) || !(t > lastMessage)) bad(`${m.id} timestamp "${m.timestamp}" is not after the message before`);
      lastMessage = t;
    });
  });
  if (speakers.size !== 2) bad(`${speakers.size} speakers (${[...speakers].join(', ')}), want 2`);

  const questionsFile = join(DIR, `${id}.questions.json`);
  if (!existsSync(questionsFile)) { bad('no questions file'); continue; }
  const { conversation, questions = [] } = JSON.parse(readFileSync(questionsFile, 'utf8'));
  if (conversation !== id) bad(`questions name conversation "${conversation}"`);
  const perKind = Object.fromEntries(KINDS.map((k) => [k, 0]));
  const questionIds = new Set();
  for (const q of questions) {
    if (questionIds.has(q.id)) bad(`question id ${q.id} twice`);
    questionIds.add(q.id);
    if (!q.id?.startsWith(`${id}-q`)) bad(`question id "${q.id}" does not start with ${id}-q`);
    if (!KINDS.includes(q.kind)) bad(`${q.id} has kind "${q.kind}"`);
    else perKind[q.kind]++;
    if (!q.question?.trim() || !q.answer?.trim()) bad(`${q.id} needs a question and an answer`);
    if (!Array.isArray(q.evidence) || q.evidence.length === 0) bad(`${q.id} has no evidence`);
    for (const e of q.evidence ?? []) if (!messageIds.has(e)) bad(`${q.id} cites ${e}, which is no message`);
    if (new Set(q.evidence).size !== (q.evidence ?? []).length) bad(`${q.id} cites a message twice`);
    if (q.kind === 'multi-hop' && new Set((q.evidence ?? []).map((e) => e.split(':')[0])).size < 2) bad(`${q.id} is multi-hop but its evidence is in one session`);
  }
  for (const k of KINDS) if (perKind[k] === 0) bad(`no ${k} questions`);
  console.log(`${id}: ${sessions.length} sessions, ${messageIds.size} messages, ${questions.length} questions (${KINDS.map((k) => `${k} ${perKind[k]}`).join(', ')})`);
}

// The README's table names each conversation's split: an odd id number is tune, an even one test.
const readme = existsSync(join(DIR, 'README.md')) ? readFileSync(join(DIR, 'README.md'), 'utf8') : '';
for (const id of ids) {
  const row = readme.split('\n').find((line) => line.startsWith(`| ${id} |`));
  const split = Number(id.match(/(\d+)/)?.[1]) % 2 === 1 ? 'tune' : 'test';
  if (!row) problems.push(`${id}: no row in README.md`);
  else if (row.split('|')[2].trim() !== split) problems.push(`${id}: README.md gives split "${row.split('|')[2].trim()}", want ${split}`);
}

for (const p of problems) console.error(p);
process.exit(problems.length > 0 ? 1 : 0);
