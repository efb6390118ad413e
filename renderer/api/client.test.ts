import { describe, expect, it, vi } from 'vitest';
import type { CairnBridge, WireResult } from '../../shared/contracts/wire';
import { CairnError } from '../../shared/errors';
import { createClient, validEvents, webSocketUrl } from './client';

describe('webSocketUrl', () => {
  it('takes the token from the page URL', () => {
    expect(webSocketUrl({ host: '127.0.0.1:4000', protocol: 'http:', search: '?token=a-b_c' })).toBe('ws://127.0.0.1:4000/ws?token=a-b_c');
    expect(webSocketUrl({ host: 'localhost:1', protocol: 'http:', search: '' })).toBeNull();
  });
});

describe('validEvents', () => {
  it('keeps events that match the contract and drops the rest', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const events = validEvents([
      { type: 'ingest/skipped', jobId: 'j', skip: { path: 'x', reason: 'binary' } },
      { type: 'ingest/skipped', jobId: 'j', skip: { path: 'x', reason: 'not-a-reason' } },
      { type: 'made/up' },
      'nonsense',
    ]);
    expect(events).toEqual([{ type: 'ingest/skipped', jobId: 'j', skip: { path: 'x', reason: 'binary' } }]);
    expect(warn).toHaveBeenCalledOnce();
    expect(validEvents({ not: 'an array' })).toEqual([]);
    warn.mockRestore();
  });
});

describe('the Electron client', () => {
  function bridge(results: Record<string, WireResult>) {
    let listener: ((batch: unknown[]) => void) | null = null;
    const calls: [string, unknown][] = [];
    const handler = (command: string) => async (request: unknown) => {
      calls.push([command, request]);
      return results[command] ?? { ok: false, error: { code: 'INTERNAL', message: 'unexpected' } };
    };
    const api = {
      'ingest:start': handler('ingest:start'),
      'ingest:cancel': handler('ingest:cancel'),
      'fs:ls': handler('fs:ls'),
      'fs:read': handler('fs:read'),
      'fs:stat': handler('fs:stat'),
      'fs:tree': handler('fs:tree'),
      'summarize:run': handler('summarize:run'),
      'search:query': handler('search:query'),
      'index:rebuild': handler('index:rebuild'),
      pathForFile: (file: File) => (file.name === 'notes' ? '/home/me/notes' : ''),
      onEvent: (l: (batch: unknown[]) => void) => {
        listener = l;
        return () => (listener = null);
      },
    } as unknown as CairnBridge;
    return { api, calls, send: (batch: unknown[]) => listener?.(batch) };
  }

  it('calls the bridge, checks the response and revives errors with their code', async () => {
    const b = bridge({
      'fs:ls': { ok: true, result: { uri: 'ctx://resources/', entries: [] } },
      'fs:read': { ok: false, error: { code: 'NOT_FOUND', message: 'no L0 yet' } },
      'fs:stat': { ok: true, result: { not: 'a stat' } },
    });
    const client = createClient({ cairn: b.api } as unknown as Window);
    expect(client.transport).toBe('electron');
    expect(client.status).toBe('ready');
    await expect(client.call('fs:ls', { uri: 'ctx://resources/' })).resolves.toEqual({ uri: 'ctx://resources/', entries: [] });
    const error = await client.call('fs:read', { uri: 'ctx://resources/a', level: 0 }).catch((e: unknown) => e);
    expect(CairnError.is(error, 'NOT_FOUND')).toBe(true);
    await expect(client.call('fs:stat', { uri: 'ctx://resources/a' })).rejects.toMatchObject({ code: 'INTERNAL' });
    expect(b.calls[0]).toEqual(['fs:ls', { uri: 'ctx://resources/' }]);
  });

  it('tells where a dropped file lives through the bridge, and null for one made in the page', () => {
    const client = createClient({ cairn: bridge({}).api } as unknown as Window);
    expect(client.localPathOf(new File([''], 'notes'))).toBe('/home/me/notes');
    expect(client.localPathOf(new File([''], 'pasted.txt'))).toBeNull();
  });

  it('delivers validated event batches until unsubscribed', () => {
    const b = bridge({});
    const client = createClient({ cairn: b.api } as unknown as Window);
    const seen: unknown[] = [];
    const off = client.onEvents((events) => seen.push(...events));
    b.send([{ type: 'queue/enqueued', id: '1', uri: 'ctx://resources/a/', context_type: 'resource' }]);
    off();
    b.send([{ type: 'queue/enqueued', id: '2', uri: 'ctx://resources/b/', context_type: 'resource' }]);
    expect(seen).toHaveLength(1);
  });
});
