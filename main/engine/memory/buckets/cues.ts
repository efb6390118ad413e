/**
 * The cue tables of the rule classifier: phrases that signal each bucket in English and Chinese,
 * with a weight (1 a clear signal, about 0.5 a hint, below that a nudge). English cues are matched
 * on lower-cased text. The tables are general language, not tuned to any one conversation.
 */
import type { BucketType } from '../../../../shared/types/memory.js';

export interface Cue {
  /** What the reason shows: the phrase or a short name of the pattern. */
  name: string;
  pattern: RegExp;
  weight: number;
  /** Counted once per match up to this many times (question marks); default 1. */
  max?: number;
  /** Only for messages of this role (explanation cues are only evidence in answers). */
  role?: 'user' | 'assistant';
}

const en = (name: string, source: string, weight: number, extra: Partial<Cue> = {}): Cue => ({ name, pattern: new RegExp(String.raw`\b(?:${source})\b`, extra.max ? 'g' : ''), weight, ...extra });
const zh = (name: string, source: string, weight: number, extra: Partial<Cue> = {}): Cue => ({ name, pattern: new RegExp(source, extra.max ? 'gu' : 'u'), weight, ...extra });

export const CUES: Record<BucketType, Cue[]> = {
  TASK_CONTEXT: [
    en('need to / have to', String.raw`(?:i|we) (?:need|have|had|got) to|i'?ve got to|must|has to`, 0.7),
    en('working on', String.raw`(?:i'?m|i am|we'?re|we are) (?:trying|working|building|planning|migrating|setting up)`, 0.9),
    en('requirement or constraint', String.raw`requirements?|deadline|constraints?|budget|spec|due (?:on|by)`, 1),
    en('failure', String.raw`errors?|fail(?:s|ed|ing|ure)?|broken|crash(?:es|ed)?|exceptions?|bugs?|times? out|timed out|exit code|doesn'?t work|not working`, 0.8),
    en('the problem', String.raw`the (?:task|problem|issue|job)|my task|our task`, 0.8),
    en('plan or steps', String.raw`next steps?|step (?:one|two|three)|first day|day (?:one|two|three)|to-?do|checklist`, 0.8),
    en('evidence', String.raw`here it is|here'?s the|the logs? (?:say|show)s?|it says|new run|pushed`, 0.7),
    en('request', String.raw`help me|can you (?:help|list|write|make)|please (?:list|write|make|add|fix)`, 0.6),
    zh('任务/需求', '任务|需求|要求|截止|预算|期限|作业|考试', 0.8),
    zh('报错/失败', '报错|错误|失败|出错|崩溃|故障|不能用|用不了', 0.8),
    zh('需要/必须', '需要|必须|得在|要把|得把|要完成', 0.6),
    zh('计划/安排', '计划|安排|行程|步骤|清单', 0.5),
    zh('帮我', '帮我|请帮|麻烦你', 0.6),
    zh('练习/题目', '这道题|第[一二三四五]题|算出来|试一下|练习题', 0.6),
    zh('今天/明天要', '今天(?:先|要)|明天(?:继续|要)', 0.5),
  ],
  USER_INTENT: [
    en('I want', String.raw`(?:i|we) (?:really )?(?:want|wanna)|(?:i|we) (?:don'?t|do not) want`, 1),
    en("I'd like / prefer", String.raw`(?:i|we)'?d (?:like|love|prefer|rather)|(?:i|we) would (?:like|love|prefer|rather)|(?:i|we) prefer`, 1),
    en('preference', String.raw`ideally|preferably|prefer(?:ence|red)?|my favou?rite`, 0.7),
    en('goal', String.raw`(?:my|our) (?:goal|aim|priority)|(?:i|we) hope|(?:i|we) wish|hoping to`, 0.9),
    en('I like', String.raw`(?:i|we) (?:like|love|enjoy) (?:the idea|to|it when|having)`, 0.8),
    en('looking for', String.raw`looking for|would be (?:nice|great|ideal)|interested in`, 0.6),
    zh('我想/想要', '我想|我们想|想要|我还想|还想', 1),
    zh('希望', '希望|期待|期望', 1),
    zh('喜欢/偏好', '喜欢|偏好|偏爱|倾向|宁愿|宁可', 0.8),
    zh('打算/目标', '打算|目标是|想去|想看|想找|想学|想多|想复习', 0.7),
    zh('不想', '不想|不希望|别太', 0.8),
    zh('最好', '最好', 0.4),
  ],
  DECISION_CONTEXT: [
    en("let's go with", String.raw`let'?s (?:go with|use|do|pick|stick with|try|choose)`, 1),
    en('we decided', String.raw`(?:i|we) (?:decided|chose|picked|settled on|agreed|went with)|decided to`, 1),
    en("we'll use", String.raw`(?:we|i)'?ll (?:use|go with|pick|take|put|stick with|choose|switch to)|(?:we|i) will (?:use|go with|pick|put|choose)`, 0.9),
    en('I recommend', String.raw`(?:i'?d|i would|we'?d) (?:recommend|suggest|go with|pick|choose)|i recommend|i suggest`, 1),
    en('decision words', String.raw`decision|decide|choice|trade-?offs?|option is|is out|makes sense`, 0.5),
    en('because', String.raw`because|since|due to`, 0.4),
    en('so / therefore', String.raw`therefore|that'?s why|which is why|so we`, 0.4),
    en('instead', String.raw`instead of|rather than|over the other`, 0.4),
    en('the best fix', String.raw`the (?:cleanest|best|simplest|safest) (?:fix|option|choice|way|approach)`, 0.8),
    zh('决定/选择', '决定|选择|选定|定了|拍板', 1),
    zh('那就', '那就|就用|就选|还是用|就这么|那.{0,8}就', 1),
    // An answer that suggests what to do ("可以试试…", "可以先排除…") recommends a choice.
    zh('可以试试/可以先', '可以试试|不妨|可以先|可以考虑|可以换成|可以改成|可以从', 0.6, { role: 'assistant' }),
    zh('建议/推荐', '建议|推荐', 0.6),
    zh('因为/所以', '因为|由于|所以|因此', 0.4),
    zh('方案/权衡', '方案|权衡|取舍|有道理', 0.4),
  ],
  KNOWLEDGE_GAP: [
    zh('question mark', '[?？]', 0.7, { max: 2 }),
    en("don't know", String.raw`(?:i|we) (?:don'?t|do not|didn'?t) (?:know|understand|get)|not sure|no idea|unclear|confused|i wonder|can'?t figure`, 1),
    en('how / what / why', String.raw`how (?:do|does|can|should|would|much|many|to)|what(?:'s| is| are| does| about| happens)|why (?:does|is|do|not|would)|which one|where do|is there|are there|difference between`, 0.6),
    en('explain', String.raw`explain|what it means`, 0.6),
    en('explanation', String.raw`means|is (?:a|an|the)|usually|typically|in general|for example|you can|you could|the catch|works by`, 0.4, { role: 'assistant' }),
    zh('不知道/不懂', '不知道|不清楚|不懂|不太明白|不明白|搞不懂|不确定|没听懂|不理解', 1),
    zh('怎么/为什么', '怎么|如何|为什么|为啥|什么|哪个|哪些|哪里|多少|是不是|有没有|会不会|值不值|能不能', 0.5),
    zh('请问', '请问|想问', 0.6),
    zh('解释', '意思是|也就是|等价于|一般|通常|可以这样理解|当且仅当|检验', 0.4, { role: 'assistant' }),
  ],
  EMOTIONAL_TRACE: [
    // A feeling word counts when someone has the feeling ("I'm worried", "so relieved", "makes me
    // nervous"): alone it is often about code ("the happy path", "a kernel panic", "worry about
    // the cache later").
    en(
      'feeling',
      String.raw`(?:i|we|i'?m|i am|we'?re|we are|i was|we were|i feel|i felt|i get|i got|i'?ve been|we'?ve been|makes me|made me|feeling|getting|so|really|very|pretty|bit|kind of|super|too|honestly)\s+(?:\w+\s+){0,2}?(?:frustrat\w*|annoy(?:ed|ing)|stress(?:ed|ful)|worried|anxious|nervous|scared|afraid|upset|overwhelmed|exhausted|fed up|relieved|excited|thrilled|happy|glad|sad|disappointed|panick(?:ed|ing))|what a relief|such a relief|i worry|i'?m panicking`,
      1,
    ),
    en('exclamation word', String.raw`ugh|argh|yay|phew|woohoo|omg|wow`, 1),
    en('thanks', String.raw`thanks|thank you|appreciate|you saved|lifesaver`, 0.7),
    en('I feel', String.raw`i feel|i'?m feeling|feel (?:much |so )?(?:better|worse|good|bad)`, 0.9),
    en('praise', String.raw`great|awesome|amazing|perfect|love it|finally`, 0.4),
    en('honestly', String.raw`honestly`, 0.3),
    zh('!', '[!！]', 0.2, { max: 2 }),
    // 崩溃 and 压力 are also about systems ("服务崩溃", "压力测试"): they count with a person's words around them.
    zh('烦/焦虑/担心', '(?<!麻)烦死|好烦|很烦|焦虑|担心|害怕|紧张|郁闷|难受|头疼|头大|无语|心慌|好慌|着急|失望|心累|(?:我|快|要|真|心态)(?:要)?崩溃|压力(?:好|很|太|有点|挺|特别)?大', 1),
    zh('开心/放心', '开心|高兴|激动|太好了|好棒|踏实|放心|感动', 1),
    zh('谢谢', '谢谢|感谢|多谢', 0.7),
    zh('语气词', '哈哈|哇|唉|呜', 0.8),
    zh('终于', '终于', 0.4),
  ],
};

/** When no cue matches: users mostly describe the work, assistants mostly explain. */
export const ROLE_PRIOR: Record<string, Partial<Record<BucketType, number>>> = {
  user: { TASK_CONTEXT: 0.2 },
  assistant: { KNOWLEDGE_GAP: 0.3 },
  system: { TASK_CONTEXT: 0.2 },
  tool: { KNOWLEDGE_GAP: 0.2 },
};

/** Tie-break order: the more specific bucket wins an exact tie. */
export const BUCKET_ORDER: BucketType[] = ['DECISION_CONTEXT', 'USER_INTENT', 'EMOTIONAL_TRACE', 'KNOWLEDGE_GAP', 'TASK_CONTEXT'];
