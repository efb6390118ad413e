/**
 * "Choose folder…" / "Choose file…" / "Choose where…": the native picker next to a path field,
 * shown only where the host has pickers (the desktop app). A cancel changes nothing.
 */
import { useState } from 'react';
import type { HostCommandRequest } from '../../../shared/contracts/host';
import type { PickerCommand } from '../../api/desktop-host';
import { useT } from '../../use-t';
import { desktopHost, useHostCapabilities } from './use-desktop-host';

const LABELS = {
  'host:pickFolder': 'desktop.chooseFolder',
  'host:pickFile': 'desktop.chooseFile',
  'host:pickSavePath': 'desktop.chooseSavePath',
} as const satisfies Record<PickerCommand, string>;

export function ChoosePathButton<K extends PickerCommand>({
  picker,
  request,
  onChosen,
  disabled,
  testId,
}: {
  picker: K;
  request: HostCommandRequest<K>;
  onChosen(path: string): void;
  disabled?: boolean;
  testId?: string;
}) {
  const t = useT();
  const { pickers } = useHostCapabilities();
  const [busy, setBusy] = useState(false);
  if (!pickers) return null;
  const choose = async () => {
    setBusy(true);
    try {
      const path = await desktopHost().pick(picker, request);
      if (path) onChosen(path);
    } catch (error) {
      console.warn(`Cairn: the picker failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <button type="button" onClick={() => void choose()} disabled={disabled || busy} data-testid={testId}>
      {t(LABELS[picker])}
    </button>
  );
}
