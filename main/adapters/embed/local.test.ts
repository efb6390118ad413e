import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLocalEmbedder, embedText } from './local.js';

const DIMS = 512;
const cos = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * (b[i] as number), 0);
const sim = (a: string, b: string) => cos(embedText(a, DIMS), embedText(b, DIMS));

describe('local embedder', () => {
  it('is deterministic, unit length and names its algorithm and dimensions', async () => {
    const embedder = createLocalEmbedder({ dimensions: 256 });
    expect(embedder.modelId).toBe('cairn-local-hash-v2.1-256');
    expect(embedder.dimensions).toBe(256);
    const { vectors } = await embedder.embed({ texts: ['Storm review: the uplink dropped.', 'Storm review: the uplink dropped.', ''] });
    expect(vectors).toHaveLength(3);
    expect(Array.from(vectors[0] as Float32Array)).toEqual(Array.from(vectors[1] as Float32Array));
    for (const vector of vectors) {
      expect(vector).toHaveLength(256);
      expect(Math.sqrt(cos(vector, vector))).toBeCloseTo(1, 5);
    }
    // A different model id for other dimensions: their vectors are not comparable.
    expect(createLocalEmbedder().modelId).toBe('cairn-local-hash-v2.1-512');
    // Without the lexicon: version 1's features, and its id.
    expect(createLocalEmbedder({ lexicon: false }).modelId).toBe('cairn-local-hash-v1.1-512');
  });

  it('places related English texts closer than unrelated ones, through morphology and typos', () => {
    const doc = 'The weather station uplink dropped during the storm, so we reconfigured the antenna.';
    expect(sim('storm uplink antenna', doc)).toBeGreaterThan(0.3);
    expect(sim('storm uplink antenna', 'Parsers are registered by file extension.')).toBeLessThan(0.1);
    expect(sim('configuring parsers', 'configure the parser')).toBeGreaterThan(0.7);
    expect(sim('recieve mesages', 'receive messages')).toBeGreaterThan(sim('recieve mesages', 'parse documents') + 0.2);
    // Word order matters a little (bigrams), not a lot.
    expect(sim('storm review', 'review storm')).toBeGreaterThan(0.6);
    expect(sim('storm review', 'review storm')).toBeLessThan(0.99);
  });

  it('places paraphrases closer through WordNet senses and weighs rare words above common ones', () => {
    const plain = (a: string, b: string) => cos(embedText(a, DIMS, undefined, null), embedText(b, DIMS, undefined, null));
    // No word in common: only shared senses bring these together.
    expect(plain('automobile fix', 'car repair')).toBeLessThan(0.05);
    expect(sim('automobile fix', 'car repair')).toBeGreaterThan(0.1);
    expect(sim('automobile fix', 'car repair')).toBeGreaterThan(sim('automobile fix', 'banana bread') + 0.1);
    // Siblings share only their ancestors, which weigh little: closer, not close.
    expect(sim('guitar', 'banjo')).toBeGreaterThan(plain('guitar', 'banjo') + 0.02);
    expect(sim('guitar', 'banjo')).toBeGreaterThan(sim('guitar', 'spinach') + 0.02);
    // The rare word of a query decides more than a common one.
    expect(sim('guitar work', 'guitar lessons')).toBeGreaterThan(sim('guitar work', 'work lessons'));
  });

  it('places related Chinese and mixed texts closer than unrelated ones', () => {
    const doc = '气象站上行链路在暴风雨期间中断，我们重新配置了天线并切换到备用频率。';
    expect(sim('暴风雨 天线', doc)).toBeGreaterThan(0.3);
    expect(sim('暴风雨 天线', '快速入门：安装向量数据库并配置嵌入模型。')).toBeLessThan(0.1);
    expect(sim('用 LanceDB 存储向量', 'LanceDB 向量存储')).toBeGreaterThan(0.5);
  });

  // Texts whose vectors are pinned below: camelCase, stop words between content words, CJK between
  // English runs (the bigram chain restarts), typos of shared trigrams, runs too long to cache.
  const PINNED_TEXTS = [
    "Parsers parse parsing: the parseCtxUri HTTPServer reads ctx://resources/docs and the parser's output.",
    'func (c *Conn) Read(b []byte) (n int, err error) { return c.fd.Read(b) } // Read implements the Conn Read method.',
    '暴风雨复盘：the automobile and car repair 我们的 uplink 天线 decision decide Ｌａｎｃｅ naïve café',
    'the of and to in',
    '',
    `${'a'.repeat(95)} base64 QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0NTY3ODk`,
  ];

  it('keeps the vectors its model id stands for (stored vectors stay valid)', () => {
    // The digest of these vectors as version 2 first computed them, word by word without a cache:
    // a change of features, weights or their order changes it, and must bump the version.
    const digest = createHash('sha256');
    for (const lexicon of [undefined, null]) for (const text of PINNED_TEXTS) digest.update(Buffer.from(embedText(text, DIMS, undefined, lexicon).buffer));
    expect(digest.digest('hex')).toBe('b288f0058119232ab5b7034db9f443e23e2945a6dbcfca7b46832c4ed3f4a607');
  });

  it('gives a text the same vector whatever it embedded before (its word cache changes nothing)', async () => {
    const texts = [...PINNED_TEXTS, ...PINNED_TEXTS.map((text) => text.split(' ').reverse().join(' ')), 'Read read READ readFile ReadFile'];
    const warm = createLocalEmbedder();
    const { vectors: once } = await warm.embed({ texts });
    const { vectors: again } = await warm.embed({ texts: [...texts].reverse() });
    for (const [i, text] of texts.entries()) {
      const { vectors: cold } = await createLocalEmbedder().embed({ texts: [text] });
      expect(Array.from(once[i] as Float32Array)).toEqual(Array.from(cold[0] as Float32Array));
      expect(Array.from(again[texts.length - 1 - i] as Float32Array)).toEqual(Array.from(cold[0] as Float32Array));
    }
  });

  it('stops when its signal aborts and rejects impossible dimensions', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(createLocalEmbedder().embed({ texts: ['x'], signal: controller.signal })).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(() => createLocalEmbedder({ dimensions: 3 })).toThrow(/dimensions/);
  });
});
