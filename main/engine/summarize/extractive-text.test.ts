import { describe, expect, it } from 'vitest';
import { charLength, detectLanguage, joinLines, splitSentences, tokenize, truncate } from './extractive-text.js';

describe('splitSentences', () => {
  it('splits English on . ! ? followed by a space', () => {
    expect(splitSentences('The lamp failed. Was the changer stuck? Yes! It was.')).toEqual(['The lamp failed.', 'Was the changer stuck?', 'Yes!', 'It was.']);
  });

  it('keeps abbreviations, initials, decimals, versions and file names together', () => {
    expect(splitSentences('Clean it with water, e.g. distilled water. Ask J. Smith about v1.2 in ops.md first. Pi is 3.14 here.')).toEqual([
      'Clean it with water, e.g. distilled water.',
      'Ask J. Smith about v1.2 in ops.md first.',
      'Pi is 3.14 here.',
    ]);
  });

  it('splits Chinese on 。！？ with closing quotes kept', () => {
    expect(splitSentences('预报每十分钟更新一次。电压过低怎么办？先查看电池！他说：“马上处理。”然后离开了。')).toEqual([
      '预报每十分钟更新一次。',
      '电压过低怎么办？',
      '先查看电池！',
      '他说：“马上处理。”',
      '然后离开了。',
    ]);
  });

  it('keeps a trailing fragment without punctuation', () => {
    expect(splitSentences('First one. and a fragment')).toEqual(['First one.', 'and a fragment']);
  });
});

describe('detectLanguage', () => {
  it('tells Chinese, Japanese, Korean and Latin text apart', () => {
    expect(detectLanguage('The harbour stations report every ten minutes.')).toBe('en');
    expect(detectLanguage('港口气象站每十分钟上报一次数据。')).toBe('zh');
    expect(detectLanguage('観測所は十分ごとにデータを送ります。')).toBe('ja');
    expect(detectLanguage('관측소는 10분마다 데이터를 보냅니다.')).toBe('ko');
  });

  it('counts a Chinese text with English names as Chinese', () => {
    expect(detectLanguage('Tidewater 的 LoRa 网关把数据包转发到基站服务器，服务器检查后写入数据库。')).toBe('zh');
  });
});

describe('tokenize', () => {
  it('drops stopwords, lower-cases and singularizes English', () => {
    expect(tokenize("The keepers' lamps and the station's batteries", 'en').map((t) => t.key)).toEqual(['keeper', 'lamp', 'station', 'battery']);
  });

  it('keeps how a word was written and where', () => {
    const [token] = tokenize('Use LanceDB here', 'en');
    expect(token).toEqual({ key: 'lancedb', surface: 'LanceDB', start: 4, end: 11 });
  });

  it('segments Chinese into words of two characters or more, without function words', () => {
    const words = tokenize('我们使用向量索引检查观测站的数据', 'zh').map((t) => t.key);
    expect(words).toEqual(expect.arrayContaining(['向量', '索引', '检查', '数据']));
    expect(words).not.toContain('我们');
    expect(words).not.toContain('的');
  });

  it('handles mixed scripts in one sentence', () => {
    expect(tokenize('LoRa 网络发送数据', 'zh').map((t) => t.surface)).toEqual(['LoRa', '网络', '发送', '数据']);
  });
});

describe('text helpers', () => {
  it('joins wrapped Chinese lines without spaces and Latin lines with one', () => {
    expect(joinLines(['预报每十分钟', '更新一次。'])).toBe('预报每十分钟更新一次。');
    expect(joinLines(['The lamp is', '  a bulb.'])).toBe('The lamp is a bulb.');
  });

  it('truncates at a word boundary with an ellipsis, counting code points', () => {
    expect(truncate('short', 10)).toBe('short');
    expect(truncate('the lamp and the lens and the fog signal', 20)).toBe('the lamp and the…');
    expect(charLength(truncate('港口气象站每十分钟上报一次数据', 8))).toBe(8);
    expect(charLength('𝄞a')).toBe(2);
  });
});
