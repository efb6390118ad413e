// Track A (issue 6) on a synthetic 1,000-message conversation: rule classification, TF-IDF,
// HAC and layout, in ms per message. The engine's TypeScript is bundled with esbuild first, as
// bench/skeleton.mjs does. Run alone (`node bench/track-a.bench.mjs`) or from bench/run.mjs.
import { pathToFileURL } from 'node:url';
import { importTs } from './lib/bundle.mjs';

// Ten topics, each with a few English and Chinese sentence templates; {n} varies the wording.
const TOPICS = [
  ['The deploy to staging fails at docker build with exit code {n}.', 'I want the build to fit on the free runner.', 'How do I check the memory the build uses?', '部署到测试环境失败了，构建第{n}步报错。'],
  ['We need a database for {n} studios with bookings and reports.', "Let's go with Postgres because the data is relational.", 'What is the difference between Neon and Supabase?', '数据库我们决定用 Postgres，因为需要事务。'],
  ['I am planning a trip to Yunnan for {n} days with my parents.', 'I hope the schedule is relaxed, my mom has bad knees.', '大理住古城还是洱海边好？', '我希望行程别太赶，第{n}天休息。'],
  ['The exam covers eigenvalues and diagonalization, chapter {n}.', '特征值怎么求？det(A - λI) = 0 是怎么来的？', '我有点慌，这一章没听懂。', 'I decided to do past papers first since they show the common questions.'],
  ['The invoice export times out after {n} seconds for large accounts.', 'Ugh, this is so frustrating, customers keep emailing.', 'Is there a way to stream the CSV instead of building it in memory?', '导出发票超时了，大客户有{n}万行数据。'],
  ['Our cat needs a new diet, the vet says she is {n} kg overweight.', 'I would prefer wet food, she hates dry kibble.', '猫粮怎么换比较好？要不要慢慢过渡？', 'Thanks, that really helps, I was worried about her.'],
  ['The React app re-renders the whole list on every keystroke, {n} rows.', 'We will use virtualization with react-window instead of paging.', 'Why does memo not stop the re-render here?', '列表每次输入都重新渲染，很卡。'],
  ['I need to write a cover letter for a data analyst job by Friday, {n} words max.', '我想突出我做过的数据可视化项目。', 'What should the first paragraph say?', 'I feel much better about the letter now, great, thanks!'],
  ['The garden tomatoes have yellow leaves on the lower branches, {n} plants.', '是不是浇水太多了？', 'Let us go with watering every other day and mulch, because the soil stays wet.', 'I like the idea of companion planting basil.'],
  ['Monthly budget: rent {n}, groceries, and savings for a car.', '我打算每个月存三千块买车。', 'How much should go to an emergency fund?', 'We decided to cut the streaming subscriptions since we rarely watch.'],
];

function syntheticConversation(count) {
  const messages = [];
  for (let i = 0; i < count; i += 1) {
    // Topics come in runs of 8-14 messages, as in real chats, and recur later.
    const topic = TOPICS[Math.floor(i / 11) % TOPICS.length];
    const template = topic[(i * 7) % topic.length];
    messages.push({ id: `s1:${i + 1}`, role: i % 2 === 0 ? 'user' : 'assistant', text: template.replace('{n}', String(3 + (i % 17))) });
  }
  return { id: 'bench', sessions: [{ id: 's1', messages }] };
}

function bundle() {
  return importTs('track-a', [{ from: './main/engine/memory/buckets/index.ts', names: ['runTrackA'] }]);
}

export default async function run() {
  const { runTrackA } = await bundle();
  const rows = [];
  for (const count of [100, 1000, 2000]) {
    const conversation = syntheticConversation(count);
    await runTrackA(conversation); // warm-up (regex compilation, JIT)
    const times = [];
    let result;
    for (let r = 0; r < 5; r += 1) {
      const t = performance.now();
      result = await runTrackA(conversation);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const median = times[2];
    rows.push({ messages: count, medianMs: +median.toFixed(1), minMs: +times[0].toFixed(1), msPerMessage: +(median / count).toFixed(3), clusters: result.clusters.length });
  }
  return { name: 'track-a', rows, note: 'rules path (no model), synthetic chat of 10 recurring topics in English and Chinese; median of 5 runs after one warm-up' };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await run();
  console.log(result.note);
  console.table(result.rows);
}
