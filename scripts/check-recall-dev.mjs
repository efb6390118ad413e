// Checks the hand-written conversational recall dev set in test/fixtures/recall-dev/:
// every conversation has two named speakers, 15+ sessions with increasing dates and unique
// message ids, its questions cite messages that exist, and README.md lists it with the split its
// id gives (odd: tune, even: test). Prints counts per question kind.
// Usage: node scripts/check-recall-dev.mjs [--show] [id ...]   (no ids: every conversation in the folder)
// --show prints each question with the text of the messages it cites, to read an evidence list
// against its question by eye (an id can exist and still point at the wrong message).
import fs from 'node:fs';
import path from 'node:path';

const DIR = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'test', 'fixtures', 'recall-dev');
const KINDS = ['single-hop', 'multi-hop', 'temporal', 'open-domain'];

function checkConversation(id, show) {
  const errors = [];
  const conv = JSON.parse(fs.readFileSync(path.join(DIR, `${id}.json`), 'utf8'));
  const qs = JSON.parse(fs.readFileSync(path.join(DIR, `${id}.questions.json`), 'utf8'));
  if (conv.id !== id) errors.push(`id is "${conv.id}", file is ${id}.json`);
  if (!conv.title) errors.push('no title');
  if (conv.sessions.length < 15) errors.push(`${conv.sessions.length} sessions, need at least 15`);

  const messageIds = new Set();
  const textById = new Map(conv.sessions.flatMap((s) => s.messages.map((m) => [m.id, `${m.speaker}: ${m.text}`])));
  const speakers = new Set();
  let last = 0;
  let messages = 0;
  conv.sessions.forEach((s, i) => {
    if (s.id !== `s${i + 1}`) errors.push(`session ${i + 1} has id ${s.id}`);
    const start = Date.parse(s.started_at);
    if (!(start > last)) errors.push(`${s.id} starts at ${s.started_at}, not after the previous session`);
    s.messages.forEach((m, k) => {
      messages++;
      if (m.id !== `${s.id}:${k + 1}`) errors.push(`${s.id} message ${k + 1} has id ${m.id}`);
      if (messageIds.has(m.id)) errors.push(`duplicate message id ${m.id}`);
      messageIds.add(m.id);
      if (m.role !== 'user' || !m.speaker) errors.push(`${m.id} needs role "user" and a speaker`);
      speakers.add(m.speaker);
      if (!m.text?.trim()) errors.push(`${m.id} has no text`);
      const at = Date.parse(m.timestamp);
      if (!(at >= (k === 0 ? start : last))) errors.push(`${m.id} timestamp ${m.timestamp} goes back in time`);
      last = at;
    });
    if (s.messages.length === 0) last = start;
  });
  if (speakers.size !== 2) errors.push(`${speakers.size} speakers (${[...speakers].join(', ')}), need 2`);

  if (qs.conversation !== id) errors.push(`questions name conversation "${qs.conversation}"`);
  const counts = Object.fromEntries(KINDS.map((k) => [k, 0]));
  const questionIds = new Set();
  for (const q of qs.questions) {
    if (questionIds.has(q.id)) errors.push(`duplicate question id ${q.id}`);
    questionIds.add(q.id);
    if (!q.id.startsWith(`${id}-q`)) errors.push(`question id ${q.id} should start with ${id}-q`);
    if (!KINDS.includes(q.kind)) errors.push(`${q.id} has unknown kind "${q.kind}"`);
    else counts[q.kind]++;
    if (!q.question?.trim() || !q.answer?.trim()) errors.push(`${q.id} needs a question and an answer`);
    if (!Array.isArray(q.evidence) || q.evidence.length === 0) errors.push(`${q.id} has no evidence`);
    for (const e of q.evidence ?? []) if (!messageIds.has(e)) errors.push(`${q.id} cites ${e}, which does not exist`);
    if (new Set(q.evidence).size !== q.evidence?.length) errors.push(`${q.id} cites a message twice`);
    if (show) {
      console.log(`${q.id} [${q.kind}] ${q.question}\n  answer: ${q.answer}`);
      for (const e of q.evidence ?? []) console.log(`  ${e} ${textById.get(e) ?? '(missing)'}`);
    }
    if (q.kind === 'multi-hop') {
      const sessionsCited = new Set(q.evidence.map((e) => e.split(':')[0]));
      if (sessionsCited.size < 2) errors.push(`${q.id} is multi-hop but cites one session`);
    }
  }
  for (const k of KINDS) if (counts[k] === 0) errors.push(`no ${k} questions`);

  const summary = `${id}: ${conv.sessions.length} sessions, ${messages} messages, ${qs.questions.length} questions (` +
    KINDS.map((k) => `${k} ${counts[k]}`).join(', ') + ')';
  return { summary, errors };
}

const args = process.argv.slice(2);
const show = args.includes('--show');
const named = args.filter((a) => a !== '--show');
const ids = named.length
  ? named
  : fs.readdirSync(DIR).filter((f) => f.endsWith('.json') && !f.endsWith('.questions.json')).map((f) => f.slice(0, -5)).sort();
// The README's table names each conversation's split: an odd id number is tune, an even one test.
const readme = fs.existsSync(path.join(DIR, 'README.md')) ? fs.readFileSync(path.join(DIR, 'README.md'), 'utf8') : '';
function readmeErrors(id) {
  const split = Number(id.match(/^rc(\d+)/)?.[1] ?? NaN) % 2 === 1 ? 'tune' : 'test';
  const row = readme.split('\n').find((line) => line.startsWith(`| ${id} |`));
  if (!row) return [`no row in README.md`];
  const listed = row.split('|')[2].trim();
  return listed === split ? [] : [`README.md gives split "${listed}", want ${split}`];
}

let failed = 0;
for (const id of ids) {
  const { summary, errors: own } = checkConversation(id, show);
  const errors = [...own, ...readmeErrors(id)];
  console.log(summary);
  for (const e of errors) console.log(`  error: ${e}`);
  if (errors.length) failed++;
}
if (failed) {
  console.log(`${failed} of ${ids.length} conversations have errors`);
  process.exit(1);
}
console.log(`${ids.length} conversations ok`);
