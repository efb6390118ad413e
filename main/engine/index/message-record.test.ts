import { describe, expect, it } from 'vitest';
import { formatMessageRecord, messageEmbedContext } from './message-record.js';

describe('formatMessageRecord', () => {
  it('names the day and the speaker', () => {
    expect(formatMessageRecord({ id: 's2:7', role: 'user', speaker: 'Ana', text: 'Moving on the 15th.', timestamp: '2024-04-14T10:38:00Z' })).toBe('[2024-04-14] Ana: Moving on the 15th.');
    // The day as written, not converted to UTC: 00:30 in Shanghai is still the 9th there.
    expect(formatMessageRecord({ id: '1', role: 'user', speaker: '小林', text: '到了', timestamp: '2024-07-09T00:30:00+08:00' })).toBe('[2024-07-09] 小林: 到了');
  });

  it('falls back to the session start for the day and to the role for the speaker', () => {
    expect(formatMessageRecord({ id: '1', role: 'assistant', text: 'Done.' }, '2024-05-08T13:56:00Z')).toBe('[2024-05-08] assistant: Done.');
    expect(formatMessageRecord({ id: '1', role: 'user', speaker: ' ', text: 'Hi', timestamp: 'yesterday' })).toBe('user: Hi');
  });
});

describe('messageEmbedContext', () => {
  const messages = ['How did Berlin go?', 'I finished! 1 hour 52 minutes.', '  ', 'Under two hours is amazing.'].map((text, i) => ({ id: String(i), role: 'user' as const, text }));

  it('is the text of the nearest non-empty message before and after', () => {
    expect(messageEmbedContext(messages, 1)).toBe('How did Berlin go?\nUnder two hours is amazing.');
    expect(messageEmbedContext(messages, 0)).toBe('I finished! 1 hour 52 minutes.');
    expect(messageEmbedContext(messages, 3)).toBe('I finished! 1 hour 52 minutes.');
    expect(messageEmbedContext(messages.slice(0, 1), 0)).toBe('');
  });
});
