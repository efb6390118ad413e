/**
 * Issue 17: the rules that give a chain its structure (a whole clause per step, a cause and its
 * effect, an argument, a procedure, a timeline), the per-kind commit gates and the memory
 * calibration, each shown on a small conversation.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Conversation } from '../../shared/types/memory.js';
import { analyzeOffline, fitCommitGates } from '../../bench/lib/memory-eval.js';
import { MAX_RULE_CONFIDENCE } from '../../main/engine/memory/chains/build-chain.js';
import { extractChainsWithRules } from '../../main/engine/memory/chains/track-b.js';
import { isProblem, SOLUTION } from '../../main/engine/memory/chains/extract-causal.js';
import { isInstruction } from '../../main/engine/memory/chains/extract-operation.js';
import { splitSentences } from '../../main/engine/memory/chains/text-units.js';
import { findTimes } from '../../main/engine/memory/chains/time-expressions.js';
import { calibrateMemory, commitGate, type MemoryKind } from '../../main/engine/memory/fusion/calibration.js';
import { AUTO_COMMIT_CONFIDENCE, preferenceStrength } from '../../main/engine/memory/processor/candidates.js';

const EPOCH = () => new Date('2026-01-01T00:00:00Z');

function conversation(id: string, lines: [role: 'user' | 'assistant', text: string][]): Conversation {
  return { id, sessions: [{ id: 's1', messages: lines.map(([role, text], i) => ({ id: `m${i + 1}`, role, text })) }] };
}

describe('chain structure (issue 17, precision rules)', () => {
  const steps = (lines: [role: 'user' | 'assistant', text: string][], type: string) =>
    extractChainsWithRules(conversation(type, lines), { now: EPOCH })
      .filter((c) => c.chain_type === type)
      .map((c) => c.nodes.map((n) => `${n.role}: ${n.text}`));

  it('keeps a causal step a whole clause: "X led to Y" inside one clause is one step', () => {
    const chains = steps(
      [
        ['user', 'The nightly export keeps failing.'],
        ['assistant', 'A full disk led to the failures.'],
      ],
      'CAUSAL',
    );
    expect(chains).toEqual([['problem: The nightly export keeps failing.', 'cause: A full disk led to the failures.']]);
  });

  it('keeps a hedge with the cause it hedges: "A, probably because B"', () => {
    const chains = steps([['assistant', 'The planner is not using the index, probably because the query wraps the column in LOWER().']], 'CAUSAL');
    expect(chains).toEqual([['cause: probably because the query wraps the column in LOWER().', 'effect: The planner is not using the index']]);
  });

  it('takes a second reason ("…, and because…") for no effect of the first', () => {
    const lines: [role: 'user' | 'assistant', text: string][] = [
      ['user', 'The invoices keep failing to send.'],
      ['assistant', "Because of the new mail relay, and because the retry queue was switched off last week."],
    ];
    expect(steps(lines, 'CAUSAL')).toEqual([['problem: The invoices keep failing to send.', "cause: Because of the new mail relay, and because the retry queue was switched off last week."]]);
  });

  it('cuts "因为…，所以…" before 所以 and leaves out an introduction ending in a colon', () => {
    const chains = steps([['assistant', '原因很清楚：因为文件名变了，规则匹配不到新文件，所以日志一直写在同一个文件里。']], 'CAUSAL');
    expect(chains).toEqual([['cause: 因为文件名变了，规则匹配不到新文件', 'effect: 所以日志一直写在同一个文件里。']]);
  });

  it('leaves a hypothetical to LOGIC and a judgement on evidence out of CAUSAL', () => {
    const lines: [role: 'user' | 'assistant', text: string][] = [
      ['assistant', 'If the membrane is torn, the vessel has to be replaced, which costs more because it sits inside the casing.'],
      ['assistant', 'That matches the big exports failing most, because those are the ones people give up on.'],
    ];
    expect(steps(lines, 'CAUSAL')).toEqual([]);
    expect(steps(lines, 'LOGIC')).toHaveLength(1);
  });

  it('gives "If A, B, so C" (a mechanism) one CAUSAL chain, not also a LOGIC one, and no earlier problem', () => {
    const lines: [role: 'user' | 'assistant', text: string][] = [
      ['user', 'Then we took a wrong turn at the old mill.'],
      ['assistant', 'Check the forecast first.'],
      ['assistant', 'If it rains, the path by the mill gets muddy, so the descent will be harder on the knee.'],
    ];
    expect(steps(lines, 'CAUSAL')).toEqual([['cause: If it rains, the path by the mill gets muddy', 'effect: so the descent will be harder on the knee.']]);
    expect(steps(lines, 'LOGIC')).toEqual([]);
  });

  it('reads an argument inside one sentence as LOGIC: "A, so B must…", "A，那B应该…", "A说明B", "看来"', () => {
    expect(steps([['assistant', 'The export only reads the events table, so the new column must be what slowed it down.']], 'LOGIC')).toEqual([
      ['premise: The export only reads the events table', 'conclusion: so the new column must be what slowed it down.'],
    ]);
    expect(steps([['assistant', 'The export only reads the events table, so the new column must be what slowed it down.']], 'CAUSAL')).toEqual([]);
    const zh = steps(
      [
        ['user', '一共 150 美元，比我们预算的 200 美元少，那老板应该会同意。'],
        ['assistant', '少了十二行说明快照不是在事务边界上拍的。'],
        ['user', '她每天晚上都用，说腰舒服多了，看来这个选择是对的。'],
      ],
      'LOGIC',
    );
    expect(zh).toEqual([
      ['premise: 一共 150 美元，比我们预算的 200 美元少', 'conclusion: 那老板应该会同意。'],
      ['premise: 少了十二行', 'conclusion: 说明快照不是在事务边界上拍的。'],
      ['premise: 她每天晚上都用，说腰舒服多了', 'conclusion: 看来这个选择是对的。'],
    ]);
  });

  it('takes no argument from "so" without an inference, from a decision ("so I should…") or from a sentence that gives a cause', () => {
    const lines: [role: 'user' | 'assistant', text: string][] = [
      ['user', 'It rained all morning, so we stayed in and played cards.'],
      ['user', 'The physio said downhill is the hard part for the knee, so I should use poles.'],
      ['assistant', 'The planner skips the index, probably because the query wraps the column in LOWER(), so the index can\'t match it.'],
      ['assistant', '那个方案太贵，那边的报价也没回。'],
    ];
    expect(steps(lines, 'LOGIC')).toEqual([]);
  });

  it('takes the "then" of an if-sentence for its consequent, not a step of a procedure', () => {
    const lines: [role: 'user' | 'assistant', text: string][] = [
      ['assistant', 'If the column has a default, then Postgres rewrote the whole table and the statistics are stale.'],
      ['assistant', 'Then run ANALYZE on events and look at the query plan again.'],
    ];
    expect(steps(lines, 'OPERATION')).toEqual([]);
  });

  it('keeps the subject before "就是因为" in the cause clause and cuts at the comma', () => {
    expect(steps([['user', '上个月隔壁组就是因为账号密钥泄露，整个账号被锁了三天。']], 'CAUSAL')).toEqual([['cause: 上个月隔壁组就是因为账号密钥泄露', 'effect: 整个账号被锁了三天。']]);
  });

  it('does not cut "because of" / "due to" off a sentence: they take a noun, not a clause', () => {
    const lines: [role: 'user' | 'assistant', text: string][] = [['user', 'On the first day the ferry to Mykines was cancelled because of the swell.']];
    const all = extractChainsWithRules(conversation('because-of', lines), { now: EPOCH }).flatMap((c) => c.nodes.map((n) => n.text));
    expect(all).not.toContain('because of the swell.');
    expect(steps(lines, 'CAUSAL')).toEqual([]);
  });

  it('tells a first-person story whole: "at 3 a.m. because…" is one sentence, the present perfect is no event', () => {
    const story = steps(
      [['user', 'I got paged at 3 a.m. because the export had filled the disk. I deleted the wrong temp folder and took staging down. My lead came online at 4 and restored it from the snapshot.']],
      'NARRATIVE',
    );
    expect(story).toEqual([
      ['event: I got paged at 3 a.m. because the export had filled the disk.', 'event: I deleted the wrong temp folder and took staging down.', 'event: My lead came online at 4 and restored it from the snapshot.'],
    ]);
    const status = steps([['user', 'The pressure has dropped twice this week. I have topped it up each time. It has stayed at 1.3 since then.']], 'NARRATIVE');
    expect(status).toEqual([]);
  });

  it('adds no solution to an explanation of something that is no trouble', () => {
    const chains = steps(
      [
        ['assistant', 'A lower night setting saves more than turning it off, because reheating a cold house takes a long run.'],
        ['user', 'Ok.'],
        ['assistant', 'You should also replace the old valve.'],
      ],
      'CAUSAL',
    );
    expect(chains).toHaveLength(1);
    expect((chains[0] as string[]).some((s) => s.startsWith('solution:'))).toBe(false);
  });

  it('reads a reply that opens on "Then…"/"So…" as the conclusion of the message it answers, when it judges', () => {
    const lines: [role: 'user' | 'assistant', text: string][] = [
      ['user', 'The queue went from 48,000 to 3,000 in twelve minutes and the 421 errors are gone.'],
      ['assistant', 'Then the connection limit was the bottleneck, not the number of consumers.'],
    ];
    expect(steps(lines, 'LOGIC')).toEqual([
      ['premise: The queue went from 48,000 to 3,000 in twelve minutes and the 421 errors are gone.', 'conclusion: Then the connection limit was the bottleneck, not the number of consumers.'],
    ]);
    // A list, a suggestion, a guess, the same speaker going on, or a Chinese decision: no conclusion.
    const none: [role: 'user' | 'assistant', text: string][][] = [
      [['user', 'Finance closes the month on June 30.'], ['assistant', 'Then there are two options: the evening of June 19, or June 27.']],
      [['user', 'My knee does not like long days on the bike.'], ['assistant', 'Then you could rent an e-bike and keep the stages short.']],
      [['user', 'The log is full of 421 lines.'], ['assistant', 'Then maybe the relay is throttling you.']],
      [['assistant', 'The relay allows 20 connections per client.'], ['assistant', 'Then the limit is the bottleneck.']],
      [['assistant', '但是挂载目录需要停服务，只能在周末做。'], ['user', '那就安排在周六凌晨，流量最低的时候。']],
    ];
    for (const pair of none) expect(steps(pair, 'LOGIC'), pair[1]?.[1]).toEqual([]);
  });

  it('takes a conditional plan or offer for no argument: "If A, we\'ll…", "如果…我们就…", "如果需要…我可以…"', () => {
    const lines: [role: 'user' | 'assistant', text: string][] = [
      ['user', "If the backlog comes back during the sale, we'll add the third consumer then."],
      ['user', '如果下周一之前上不了线，我们就先在前端把按钮禁用三秒。'],
      ['assistant', '可以。如果需要的话，我可以帮你写幂等校验的单元测试。'],
    ];
    expect(steps(lines, 'LOGIC')).toEqual([]);
    // A condition and what follows from it stays an argument.
    expect(steps([['assistant', 'If every retry waits 30 seconds, five retries keep a refused message in flight for two and a half minutes.']], 'LOGIC')).toHaveLength(1);
  });

  it('takes "since" before a noun phrase for a time, not a premise', () => {
    const lines: [role: 'user' | 'assistant', text: string][] = [['user', 'Their admin fixed it this morning and the twelve went through, the first clean day since the relay migration.']];
    expect(steps(lines, 'LOGIC')).toEqual([]);
    expect(steps([['assistant', "Route it to the on-call channel, since email is what's delayed when it fires."]], 'LOGIC')).toEqual([]);
  });

  it('reads "A, so B" as LOGIC when B judges (enough, safe), and "A，说明B" as an inference; not as a cause', () => {
    const en = "Three consumers with five connections each make 15, under the relay's limit of 20, so a third consumer is safe; a fourth would go over.";
    expect(steps([['assistant', en]], 'LOGIC')).toEqual([["premise: Three consumers with five connections each make 15, under the relay's limit of 20", 'conclusion: so a third consumer is safe;']]);
    const zh: [role: 'user' | 'assistant', text: string][] = [
      ['assistant', '现在回调高峰是每秒三十个，翻三倍是九十个，单台服务器压测能到每秒两百，所以一台也够，不过建议保留两台做冗余。'],
      ['assistant', '日志里没有回调记录，说明请求根本没到我们的服务器，问题不在业务代码。'],
    ];
    expect(steps(zh, 'LOGIC')).toEqual([
      ['premise: 现在回调高峰是每秒三十个，翻三倍是九十个，单台服务器压测能到每秒两百', 'conclusion: 所以一台也够，不过建议保留两台做冗余。'],
      ['premise: 日志里没有回调记录', 'conclusion: 说明请求根本没到我们的服务器，问题不在业务代码。'],
    ]);
    expect(steps(zh, 'CAUSAL')).toEqual([]);
  });

  it('takes no problem from a purpose clause and no cause from an instruction and its purpose', () => {
    expect(isProblem('Also add a dead-letter queue so that a message refused five times stops blocking the ones behind it.')).toBe(false);
    expect(isProblem('为了避免以后再出现失败，可以在证书部署脚本里加一步检查证书链。')).toBe(false);
    expect(isProblem('Their mail server rejects us with "550 sender not authorized".')).toBe(true);
    const lines: [role: 'user' | 'assistant', text: string][] = [
      ['user', 'The nightly batch keeps failing on one address.'],
      ['assistant', "Add a retry with backoff and a dead-letter queue, so one refused send doesn't fail the whole batch."],
    ];
    expect(steps(lines, 'CAUSAL')).toEqual([]);
  });

  it('gives an instruction and its reason as solution and cause, not as an effect', () => {
    const chains = steps([['assistant', "Drop it once you've confirmed no query uses it, because every extra index slows down writes."]], 'CAUSAL');
    expect(chains).toEqual([["cause: because every extra index slows down writes.", "solution: Drop it once you've confirmed no query uses it"]]);
  });

  it('leaves the introduction before a colon out of the clause a "because" explains, not a clock\'s colon', () => {
    expect(steps([['assistant', '那就对上了：回调失败是因为证书链缺了中间证书。']], 'CAUSAL')).toEqual([['problem: 回调失败', 'cause: 是因为证书链缺了中间证书。']]);
    expect(steps([['user', 'We froze writes at 18:05, five minutes late because a batch job was still running.']], 'CAUSAL')).toEqual([
      ['problem: We froze writes at 18:05, five minutes late', 'cause: because a batch job was still running.'],
    ]);
  });

  it('takes "the switch to…" (a noun) for no fix', () => {
    const chains = steps(
      [
        ['user', 'We froze writes at 18:05, five minutes late because a batch job was still running.'],
        ['user', 'The switch to the new cluster went out at 19:40, and by 20:30 the invoice checks had passed.'],
      ],
      'CAUSAL',
    );
    expect(chains).toEqual([['problem: We froze writes at 18:05, five minutes late', 'cause: because a batch job was still running.']]);
    expect(SOLUTION.test('We switched to the new cluster at 19:40.')).toBe(true);
  });

  it('takes a report of how the fix went a few messages after it as its effect', () => {
    const chains = steps(
      [
        ['user', 'Password reset emails are arriving up to an hour late.'],
        ['assistant', 'Because the new retry policy retries a failed send five times with only 30 seconds between tries.'],
        ['assistant', 'Reuse one connection per consumer instead of opening one per message.'],
        ['user', "Let's do it. I'll turn on the pooled transport now."],
        ['user', 'Pooled transport is live on both consumers.'],
        ['assistant', 'Good. Watch the queue depth for ten minutes before you change anything else.'],
        ['user', 'The queue went from 48,000 to 3,000 in twelve minutes and the 421 errors are gone.'],
      ],
      'CAUSAL',
    );
    expect(chains).toHaveLength(1);
    expect(chains[0]).toContain('effect: The queue went from 48,000 to 3,000 in twelve minutes and the 421 errors are gone.');
  });

  it('cuts "A，结果B" and "A, and as a result B" into cause and effect', () => {
    expect(steps([['assistant', '那次是备份脚本把备份文件放在了根分区，结果半夜磁盘满了，数据库直接挂了。']], 'CAUSAL')).toEqual([['cause: 那次是备份脚本把备份文件放在了根分区', 'effect: 结果半夜磁盘满了，数据库直接挂了。']]);
    expect(steps([['assistant', 'The batch job overran its window, and as a result the cutover started late.']], 'CAUSAL')).toEqual([['cause: The batch job overran its window', 'effect: and as a result the cutover started late.']]);
  });

  it('takes the answer to "怎么修？" for the solution, and a question for none', () => {
    const lines: [role: 'user' | 'assistant', text: string][] = [
      ['user', '这两天有不少用户反映付完款订单还是显示“待支付”。'],
      ['assistant', '那就对上了：回调失败是因为证书链缺了中间证书，所以回调一直没发过来。'],
      ['user', '怎么修？'],
      ['assistant', '把中间证书和站点证书合并成一个 fullchain.pem，然后 reload。'],
      ['user', '改好了，刚才测试的三笔订单回调都秒到了。'],
    ];
    const chains = steps(lines, 'CAUSAL');
    expect(chains).toHaveLength(1);
    expect(chains[0]).toContain('solution: 把中间证书和站点证书合并成一个 fullchain.pem，然后 reload。');
    expect(chains[0]).toContain('effect: 改好了，刚才测试的三笔订单回调都秒到了。');
    const asked: [role: 'user' | 'assistant', text: string][] = [
      ['user', '同步任务每天凌晨都失败。'],
      ['assistant', '失败是因为 cron 不读登录环境，所以找不到数据库地址。'],
      ['user', '那应该怎么改比较好？'],
    ];
    expect((steps(asked, 'CAUSAL')[0] ?? []).some((s) => s.startsWith('solution:'))).toBe(false);
  });

  it('takes neither "Then there is…" nor "next();" in code for a step of a procedure', () => {
    const chains = steps(
      [
        ['assistant', 'Then there is a leak somewhere. Check the pipes under the boiler.'],
        ['assistant', 'Here: `app.use((req, res, next) => { cache.set(req.id, req); next(); });`'],
      ],
      'OPERATION',
    );
    expect(chains.flat().filter((s) => /there is|next\)|next\(\)/.test(s))).toEqual([]);
  });

  it('keeps a procedure to its ordered steps: a later message joins only with "then"/"2.", a clause with a subject is no step', () => {
    const chains = steps(
      [
        ['assistant', 'First, start the API with a pool of two. Then run the export and cancel it. Finally, call any other route.'],
        ['user', 'It hangs.'],
        ['assistant', 'Use stream.pipeline, it releases the client in every case.'],
        ['assistant', 'The fitters strip out the old kitchen first, then they fit the cabinets, and the tiling comes last.'],
        ['user', 'The knee was fine.'],
        ['assistant', 'Then you can add a bit of distance. Next time try 12 km, and keep the descents gentle.'],
        ['assistant', 'Then the expression index is no longer needed.'],
      ],
      'OPERATION',
    );
    expect(chains).toEqual([['action: First, start the API with a pool of two.', 'action: Then run the export and cancel it.', 'action: Finally, call any other route.']]);
  });

  it('carries a procedure on into the next message when it says so', () => {
    const chains = steps(
      [
        ['assistant', 'First, stop the service. Then copy the data folder.'],
        ['user', 'Ok.'],
        ['assistant', 'Finally, start it again.'],
      ],
      'OPERATION',
    );
    expect(chains).toEqual([['action: First, stop the service.', 'action: Then copy the data folder.', 'action: Finally, start it again.']]);
  });

  it('makes a timeline of moments on the calendar or clock at which something happens', () => {
    const chains = steps(
      [
        ['user', 'The plumber can come on 2026-01-15 at 10:00.'],
        ['assistant', 'Thursday works.'],
        ['assistant', 'If it snows on 2026-01-16, he will come on 2026-01-19 at 09:00 instead.'],
        ['user', 'He will send the invoice on 2026-01-17.'],
        ['user', 'Last year we had the same trouble.'],
        ['user', 'I will pay him on 2026-01-20.'],
        ['user', 'I usually pay on 2026-01-25 at the latest.'],
      ],
      'TIME',
    );
    const moments = chains.flat();
    expect(moments).toContain('moment: The plumber can come on 2026-01-15 at 10:00.');
    expect(moments).toContain('moment: I will pay him on 2026-01-20.');
    // Not moments: an agreement, a condition and what would follow from it, a vague time, a habit.
    expect(moments.filter((m) => /Thursday works|snows|he will come|Last year|usually/.test(m))).toEqual([]);
  });

  it('makes a report and the plan after it two timelines, a plan and how it went one', () => {
    const stamped = (lines: [role: 'user' | 'assistant', text: string, timestamp: string][]): Conversation => ({
      id: 'time-modes',
      sessions: [{ id: 's1', messages: lines.map(([role, text, timestamp], i) => ({ id: `m${i + 1}`, role, text, timestamp })) }],
    });
    const timelines = (lines: [role: 'user' | 'assistant', text: string, timestamp: string][]) =>
      extractChainsWithRules(stamped(lines), { now: EPOCH })
        .filter((c) => c.chain_type === 'TIME')
        .map((c) => c.nodes.map((n) => n.message_ids[0]));
    // Reported on 2026-03-02 and 2026-03-09, then planned for the 16th and the 14th.
    expect(
      timelines([
        ['user', 'We got the first quote on 2026-02-20.', '2026-03-09T18:00:00Z'],
        ['user', 'I signed the contract on 2026-03-09 at 17:00.', '2026-03-09T18:01:00Z'],
        ['user', 'They start on 2026-03-16.', '2026-03-09T18:02:00Z'],
        ['user', 'We will empty the kitchen on 2026-03-14.', '2026-03-09T18:03:00Z'],
      ]),
    ).toEqual([
      ['m1', 'm2'],
      ['m3', 'm4'],
    ]);
    expect(
      timelines([
        ['user', 'The plumber will come on 2026-01-15 at 10:00.', '2026-01-12T09:00:00Z'],
        ['user', 'He came on 2026-01-15 at 10:20 and fixed it.', '2026-01-15T16:00:00Z'],
      ]),
    ).toEqual([['m1', 'm2']]);
    // "The next day" after someone else's moment is no date of theirs: no timeline of it.
    expect(
      timelines([
        ['user', 'I bought the poles on 2026-05-16.', '2026-05-18T20:00:00Z'],
        ['assistant', 'Start with a short walk, and see how the knee feels the next day.', '2026-05-18T20:01:00Z'],
      ]),
    ).toEqual([]);
    // A past moment dated before the plan's day is not how the plan went.
    expect(
      timelines([
        ['user', 'I will call the builder on 2026-05-20 at 09:00.', '2026-05-18T20:00:00Z'],
        ['user', 'I ran 5 km on 2026-05-17 at 08:00.', '2026-05-18T20:01:00Z'],
      ]),
    ).toEqual([]);
  });

  it('takes no question as a cause: the answer gives it', () => {
    const chains = extractChainsWithRules(
      conversation('causal-question', [
        ['user', 'The export failed again tonight.'],
        ['assistant', 'What caused the failure?'],
        ['user', 'The export failed because the disk was full.'],
      ]),
      { now: EPOCH, types: ['CAUSAL'] },
    );
    const steps = chains.flatMap((c) => c.nodes.map((n) => n.text));
    expect(steps).toContain('because the disk was full.');
    expect(steps.filter((s) => s.endsWith('?'))).toEqual([]);
  });

  it('finds no timeline in times that tell no sequence of events', () => {
    const stamped = (texts: string[]): Conversation => ({
      id: 'time-not-events',
      sessions: [{ id: 's1', messages: texts.map((text, i) => ({ id: `m${i + 1}`, role: 'user' as const, text, timestamp: `2026-06-08T09:0${i}:00Z` })) }],
    });
    const moments = (texts: string[]) =>
      extractChainsWithRules(stamped(texts), { now: EPOCH })
        .filter((c) => c.chain_type === 'TIME')
        .flatMap((c) => c.nodes.map((n) => n.text));
    // A window, options among slots, the days of a weekly schedule, a status "as of" a time,
    // how a day felt, the same day said twice.
    expect(moments(['The clinic is open from 9:00 to 17:00.', 'They offered 2026-06-10 at 10:00 or 2026-06-12 at 15:00.'])).toEqual([]);
    expect(moments(['诊所周一到周五上午九点到下午五点营业。', '他们给了两个时段：3月10号上午十点，或者3月12号下午三点。'])).toEqual([]);
    expect(moments(['她每周二和周四下午四点上钢琴课，周六上午还有游泳。', '周课表：周二、周四下午四点钢琴。'])).toEqual([]);
    expect(moments(['As of this morning, 31 tables are copied.', 'Yesterday was a long day, but today things feel calmer.'])).toEqual([]);
    expect(moments(['我这周特别累，今天总算好一点。', '16号以后钢琴就改到周五了。'])).toEqual([]);
    expect(moments(['光纤要到6月3号才能开通。', '6月3号开通，中间只剩三天。'])).toEqual([]);
    // A plan of dated steps is still one.
    expect(moments(['On 2026-06-19 we freeze writes at 18:00, then switch the application at 19:30.'])).toHaveLength(2);
    // "June 19." ends its sentence: the answer names a day, the next sentence another matter.
    expect(splitSentences('June 19. Lena is on a course on the 27th.')).toEqual(['June 19.', 'Lena is on a course on the 27th.']);
  });

  it("reads a preference as the user's only when its subject is", () => {
    expect(preferenceStrength('我打算给妈妈买一条真丝围巾，她一直很喜欢。')).toBe(0);
    expect(preferenceStrength('我爸喜欢拍照')).toBe(0.7);
    expect(preferenceStrength('我觉得她会喜欢，但我更喜欢红色的。')).toBe(0.7);
  });

  it('reads a reply opening with "Then" as advice: two instructions after it are no procedure, a numbered list still is', () => {
    const advice = steps(
      [
        ['user', 'Last year we printed 2,000 brochures and brought 1,500 of them back.'],
        ['assistant', 'Then print far fewer this time and put a QR code on the stand. Count the scans as well.'],
      ],
      'OPERATION',
    );
    expect(advice).toEqual([]);
    const list = steps(
      [
        ['user', 'What do we do on the set-up day?'],
        ['assistant', 'Then, in order:\n1. Meet the forwarder at 7:00.\n2. Put up the counter.\n3. Hang the banner last.'],
      ],
      'OPERATION',
    );
    expect(list).toEqual([['action: 1. Meet the forwarder at 7:00.', 'action: 2. Put up the counter.', 'action: 3. Hang the banner last.']]);
    // Nor does a reply's "Then" carry on the instruction of an earlier reply.
    const replies = steps(
      [
        ['assistant', 'Book the delivery slot for the morning; the hall opens early.'],
        ['user', 'Booked. Now the hotel: we arrive the day before.'],
        ['assistant', 'Then book the hotel this week, because prices rise once the fair gets close. Look at hotels along the train line.'],
      ],
      'OPERATION',
    );
    expect(replies).toEqual([]);
  });

  it('never cuts a step at the colon of a clock time ("7:00" stays whole)', () => {
    const chains = steps([['assistant', 'First, book the delivery slot for 7:00. Then meet the driver at the gate.']], 'OPERATION');
    expect(chains).toEqual([['action: First, book the delivery slot for 7:00.', 'action: Then meet the driver at the gate.']]);
  });

  it('takes no moment from an instruction that names a day ("Book the slot for March 2"), but from a timeline told', () => {
    const lines = ['Book the delivery slot for March 2. Then send the quote by March 12.', 'Summary: March 2 the crate arrived, March 3 we built the stand, March 4 the fair opened.'];
    const dated: Conversation = { id: 'fair', sessions: [{ id: 's1', messages: lines.map((text, i) => ({ id: `m${i + 1}`, role: i === 0 ? 'assistant' : 'user', text, timestamp: `2027-0${i + 2}-20T10:00:00Z` })) }] };
    const chains = extractChainsWithRules(dated, { now: EPOCH })
      .filter((c) => c.chain_type === 'TIME')
      .map((c) => c.nodes.map((n) => `${n.role}: ${n.text}`));
    expect(chains).toHaveLength(1);
    expect(chains[0]?.every((s) => !/Book|send the quote/.test(s))).toBe(true);
    expect(chains[0]).toContain('moment: March 3 we built the stand');
  });

  it('reads "Update:" or "Note:" before a colon as a heading, not an instruction', () => {
    expect(isInstruction('Update: staging was stable, so we pushed to production on Friday at 2pm.')).toBe(false);
    expect(isInstruction('Then book the hotel this week.')).toBe(true);
    expect(isInstruction('那就先问问行政有没有别的房间。')).toBe(false);
    expect(isInstruction('In that case put it in your calendar today.')).toBe(true);
    expect(isInstruction('1. Meet the forwarder at hall B4 at 7:00.')).toBe(true);
  });

  it('reads "16 amps" as no clock time, "4 am" and "4 a.m." as one', () => {
    expect(findTimes('Our machine demo needs 16 amps.')).toEqual([]);
    expect(findTimes('The alarm went off at 4 am.').map((t) => t.text)).toEqual(['at 4 am']);
    expect(findTimes('The alarm went off at 4 a.m. sharp.').map((t) => t.text)).toEqual(['at 4 a.m.']);
  });

  it('reads a condition inside a Chinese sentence whose result judges as an argument, and leaves out the advice it ends on', () => {
    const judged: [role: 'user' | 'assistant', text: string][] = [['user', '这家民宿如果连住五晚就打八折，一晚算下来三百二，所以其实不算贵。']];
    expect(steps(judged, 'CAUSAL')).toEqual([]);
    expect(steps(judged, 'LOGIC')).toEqual([['premise: 这家民宿如果连住五晚就打八折', 'inference: 一晚算下来三百二', 'conclusion: 所以其实不算贵。']]);
    const advised: [role: 'user' | 'assistant', text: string][] = [['assistant', '外公走得慢，如果八点才出门，九点可能赶不上开场，所以最好七点半就走。']];
    expect(steps(advised, 'CAUSAL')).toEqual([]);
    expect(steps(advised, 'LOGIC')).toEqual([['premise: 外公走得慢，如果八点才出门', 'conclusion: 九点可能赶不上开场']]);
    // A condition that opens the sentence and a result clause that tells what it brings about stays a mechanism.
    expect(steps([['assistant', '如果缓存过期，请求就会全部打到数据库，所以高峰期页面会变慢。']], 'CAUSAL')).toHaveLength(1);
  });

  it('takes what will happen "next time" for no conclusion and no fix', () => {
    const reply: [role: 'user' | 'assistant', text: string][] = [
      ['user', 'We moved the job to 2:00 and on Sunday it finished at 4:05.'],
      ['assistant', "Then next time the report runs, it'll have the night's figures with hours to spare."],
    ];
    expect(steps(reply, 'LOGIC')).toEqual([]);
    const fixes = (lines: [role: 'user' | 'assistant', text: string][]) => steps(lines, 'CAUSAL').map((c) => c.filter((s) => s.startsWith('solution')));
    expect(fixes([
      ['user', 'The upload failed twice this morning.'],
      ['assistant', 'It failed because the token had expired.'],
      ['assistant', "Then next time it expires, you'll get a warning instead of a failed upload."],
    ])).toEqual([[]]);
    expect(fixes([
      ['user', '账单超了预算，因为临时加了两个菜。'],
      ['user', '饭店说下次订包间可以打九折。'],
    ])).toEqual([[]]);
  });

  it("joins no earlier trouble to an answer about something else, nor to an argument from 既然", async () => {
    const lines: [role: 'user' | 'assistant', text: string][] = [
      ['user', '第一天的航班延误了三个小时，晚上的火车也错过了。'],
      ['assistant', '第一天有点辛苦。第二天顺利吗？'],
      ['user', '第二天很顺利，我们七点就到了山顶，因为住在山脚的民宿。'],
    ];
    const chains = steps(lines, 'CAUSAL');
    expect(chains.flat().some((s) => s.startsWith('problem'))).toBe(false);
    // A "why" question asks about the trouble: its answer explains it.
    const asked = steps([lines[0] as [role: 'user', text: string], ['assistant', '为什么会延误？'], ['user', '航班延误是因为起飞前下了暴雨。']], 'CAUSAL');
    expect(asked.flat().some((s) => s.startsWith('problem'))).toBe(true);
    expect(steps([['assistant', '既然这次因为延误错过了火车，下次就订可以改签的票。']], 'CAUSAL')).toEqual([]);
    // The trip told afterwards (test/fixtures/chains): no committed reason joins the missed train to the next morning.
    const run = await analyzeOffline(join(import.meta.dirname, '../fixtures/chains/zh-kansai-trip.json'));
    const causal = run.proposed.filter((p) => p.autoCommit && p.kind.startsWith('semantic/CAUSAL'));
    expect(causal.some((p) => p.candidate.message_ids.includes('s1:6') && p.candidate.message_ids.includes('s1:9'))).toBe(false);
  });

  it('reads 说明 as "explain" or a manual and "不要因为…就…" as advice: no argument, no cause', () => {
    const lines: [role: 'user' | 'assistant', text: string][] = [
      ['user', '物业说可以装，但是要先跟他们说明情况、交一份申请。'],
      ['assistant', '4. 约一次试驾。'],
      ['user', '说明书上写电池质保八年，这个算长吗？'],
      ['assistant', '不过不要因为赶优惠就跳过试驾，车是要开好几年的。'],
    ];
    expect(steps(lines, 'LOGIC')).toEqual([]);
    expect(steps(lines, 'CAUSAL')).toEqual([]);
    // 这说明/那说明 opening a sentence still concludes from the one before.
    expect(steps([['user', '日志里全是“No space left on device”。'], ['assistant', '这说明磁盘满了。']], 'LOGIC')).toHaveLength(1);
  });

  it('takes "if" that asks ("not sure if") and the reason for a doubt for no argument and no cause, and a decision for no conclusion', () => {
    const doubt: [role: 'user' | 'assistant', text: string][] = [['user', "I'm not sure if we'll sell more tickets this year, because two of our soloists left."]];
    expect(steps(doubt, 'LOGIC')).toEqual([]);
    expect(steps(doubt, 'CAUSAL')).toEqual([]);
    const decided: [role: 'user' | 'assistant', text: string][] = [
      ['assistant', 'Since the programme is mostly accompanied pieces, the grand piano is worth the extra 150 pounds.'],
      ['user', "So we're going with the church. I'll book it tomorrow."],
    ];
    expect(steps(decided, 'LOGIC')).toEqual([['premise: Since the programme is mostly accompanied pieces', 'conclusion: the grand piano is worth the extra 150 pounds.']]);
  });

  it('reads a reason that is a hypothetical ("Because if…") and "A, so B means C" as arguments, not causes', () => {
    const lines: [role: 'user' | 'assistant', text: string][] = [
      ['user', 'Why write the marker only after the commit?'],
      ['assistant', 'Because if the job dies halfway and the marker was already written, the next run would skip the rows it never loaded.'],
      ['user', 'Got it.'],
      ['assistant', 'Time the staging run, so you know what to expect in production.'],
    ];
    expect(steps(lines, 'CAUSAL')).toEqual([]);
    expect(steps(lines, 'LOGIC')).toEqual([['premise: Because if the job dies halfway and the marker was already written', 'conclusion: the next run would skip the rows it never loaded.']]);
    const means: [role: 'user' | 'assistant', text: string][] = [['assistant', 'The cache is filled from whatever is in the tables at 7:00, so a late job means a morning of wrong figures.']];
    expect(steps(means, 'CAUSAL')).toEqual([]);
    expect(steps(means, 'LOGIC')).toEqual([['premise: The cache is filled from whatever is in the tables at 7:00', 'conclusion: so a late job means a morning of wrong figures.']]);
  });

  it('takes a reply that closes a checklist ("Then the report is complete") for no conclusion', () => {
    const lines: [role: 'user' | 'assistant', text: string][] = [
      ['assistant', 'Anything else for the steering group?'],
      ['user', 'Only that the budget is fine: we spent 9,000 of the 15,000 so far.'],
      ['assistant', 'Then the update is ready to send.'],
    ];
    expect(steps(lines, 'LOGIC')).toEqual([]);
  });

  it('takes the times of a recurring day or a past habit for a schedule, not moments', () => {
    const lines: [role: 'user' | 'assistant', text: string][] = [
      ['user', 'It used to be done by 6:00 and now it runs until about 9:30.'],
      ['user', 'On the other nights it keeps starting at 2:00, and I check the table before 7:00 on Mondays.'],
    ];
    expect(steps(lines, 'TIME')).toEqual([]);
    // Nor is a past habit or "That's what I wanted" an event of a story.
    const told: [role: 'user' | 'assistant', text: string][] = [
      ['user', 'It used to be done by 6:00 and then it ran until 9:30.'],
      ['user', 'We moved it to 2:00 and it finished at 4:10.'],
      ["user", "That's what I wanted."],
    ];
    expect(steps(told, 'NARRATIVE')).toEqual([]);
    // A clock time with no day in the present is a timetable; the day the plan names still is a moment.
    const timetable: [role: 'user' | 'assistant', text: string][] = [
      ['user', 'The hall opens for set-up at 7:00.'],
      ['user', 'The dashboards refresh their cache at 7:00 and the report reads whatever is there at 7:30.'],
    ];
    expect(steps(timetable, 'TIME')).toEqual([]);
    expect(steps([['user', 'Support posts the notice on 2026-06-17 at 9:00.'], ['user', 'The switch starts on 2026-06-19 at 19:30.']], 'TIME')).toHaveLength(1);
  });

  it('keeps a calibrated chain confidence under the rules\' cap', async () => {
    const run = await analyzeOffline(join(import.meta.dirname, '../fixtures/memory-dev/en-ops-nightly-import.json'));
    for (const chain of run.analysis.chains) expect(chain.extraction_confidence).toBeLessThanOrEqual(MAX_RULE_CONFIDENCE);
  });

  it("commits a debugging session's causal memory by itself under the per-kind gates, and no memory of an unmeasured kind", async () => {
    const run = await analyzeOffline(join(import.meta.dirname, '../fixtures/chains/en-memory-leak.json'));
    const committed = run.proposed.filter((p) => p.autoCommit);
    expect(committed.some((p) => p.kind === 'semantic/CAUSAL' && p.candidate.title.startsWith('Why:') && p.candidate.content.includes('holds the whole `req` object'))).toBe(true);
    for (const p of committed) expect(p.candidate.confidence).toBeGreaterThanOrEqual(commitGate(p.kind) as number);
    expect(commitGate('semantic/CAUSAL-episode')).toBeUndefined();
    expect(commitGate('semantic/LOGIC')).toBeUndefined();
  });

  it('fits the gates best first while the pooled precision reaches the goal', () => {
    const point = (kind: MemoryKind, confidence: number, correct: boolean) => ({ kind, confidence, correct, score: confidence, category: kind.split('/')[0] as string, committed: false });
    const points = [
      ...Array.from({ length: 9 }, (_, i) => point('semantic/decision', 0.9, i < 8)),
      ...Array.from({ length: 10 }, (_, i) => point('semantic/CAUSAL', 0.74, i < 9)),
      ...Array.from({ length: 10 }, (_, i) => point('semantic/LOGIC', 0.65, i < 4)),
      point('event', 0.45, true),
    ];
    const tables = { 'semantic/decision': [], 'semantic/CAUSAL': [], 'semantic/LOGIC': [], event: [] };
    expect(fitCommitGates(points, tables)).toEqual({ 'semantic/decision': 0.9, 'semantic/CAUSAL': 0.74 });
  });

  it('calibrates a memory by the rule that made it, else by its category', () => {
    // Fitted on the tune half: a stated decision is nearly always kept, a reasoning chain's memory much less often.
    expect(calibrateMemory('semantic/decision', 0.6)).toBeGreaterThanOrEqual(AUTO_COMMIT_CONFIDENCE);
    expect(calibrateMemory('semantic/LOGIC', 0.77)).toBeLessThan(AUTO_COMMIT_CONFIDENCE);
    expect(calibrateMemory('semantic/no-such-rule', 0.6)).toBe(calibrateMemory('semantic', 0.6));
  });
});
