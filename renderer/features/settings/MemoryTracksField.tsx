/**
 * Settings → memory tracks: track A (buckets and topic clusters) and track B (chains) on or off
 * for the analyses the app runs (kept in the workspace's .cairn/settings.json; the CLI's
 * --no-track-a/--no-track-b still override them). Each switch saves at once.
 */
import { useEffect, useState } from 'react';
import type { MemorySettings } from '../../../shared/contracts/api';
import { errorMessage } from '../../../shared/errors';
import { useStores } from '../../stores/stores-context';
import { useT } from '../../use-t';

export function MemoryTracksField() {
  const t = useT();
  const { client } = useStores();
  const [tracks, setTracks] = useState<MemorySettings | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    client.call('settings:get', {}).then(
      (view) => setTracks(view.memory),
      (e: unknown) => setError(errorMessage(e)),
    );
  }, [client]);

  const toggle = async (patch: Partial<MemorySettings>) => {
    try {
      setTracks((await client.call('settings:set', { memory: patch })).memory);
      setError(null);
    } catch (e) {
      setError(errorMessage(e));
    }
  };

  return (
    <fieldset className="panel memory-tracks" data-testid="settings-memory-tracks">
      <legend>{t('settings.tracks.title')}</legend>
      <p className="muted small">{t('settings.tracks.hint')}</p>
      <label className="check-row">
        <input type="checkbox" disabled={!tracks} checked={tracks?.trackA ?? true} onChange={(e) => void toggle({ trackA: e.target.checked })} data-testid="settings-track-a" />
        <span>{t('settings.tracks.a')}</span>
      </label>
      <label className="check-row">
        <input type="checkbox" disabled={!tracks} checked={tracks?.trackB ?? true} onChange={(e) => void toggle({ trackB: e.target.checked })} data-testid="settings-track-b" />
        <span>{t('settings.tracks.b')}</span>
      </label>
      {error && <p className="field-error">{error}</p>}
    </fieldset>
  );
}
