import { describe, expect, it } from 'vitest';
import { CairnError, reviveError, serializeError } from './errors.js';

describe('reviveError', () => {
  it('keeps the code and details and names the origin once, however many hops the error crossed', () => {
    const original = new CairnError('INVALID_INPUT', 'notes.json is not a conversation', { details: { path: 'notes.json' } });
    const once = reviveError(serializeError(original), 'engine');
    expect(once).toMatchObject({ code: 'INVALID_INPUT', message: 'engine: notes.json is not a conversation', details: { path: 'notes.json' } });
    expect(reviveError(serializeError(once), 'engine').message).toBe('engine: notes.json is not a conversation');
    expect(reviveError(serializeError(original)).message).toBe('notes.json is not a conversation');
  });
});
