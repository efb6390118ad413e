import { describe, expect, it } from 'vitest';
import { formatMessageRecord } from './message-record.js';

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
