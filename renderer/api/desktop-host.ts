/**
 * The page's side of the desktop host (shared/contracts/host.ts): what it offers, its native
 * pickers and its menu's actions. In Electron these go through the preload's `window.cairn`; in a
 * browser there is no host to ask, so capabilities are all off (the views keep their uploads), a
 * picker answers null and no menu action comes. Everything received is validated.
 */
import { BROWSER_CAPABILITIES, HostCapabilities, hostCommands, MenuAction, type HostCommandRequest } from '../../shared/contracts/host';
import { WireResult, type CairnBridge } from '../../shared/contracts/wire';
import { CairnError } from '../../shared/errors';
import type { Locale } from '../../shared/locale';
import { errorFromWire } from './client';

export type PickerCommand = 'host:pickFolder' | 'host:pickFile' | 'host:pickSavePath';

export interface DesktopHost {
  capabilities(): Promise<HostCapabilities>;
  /** The chosen absolute path, or null when the person cancelled (always null in a browser). */
  pick<K extends PickerCommand>(command: K, request: HostCommandRequest<K>): Promise<string | null>;
  /** Each valid menu action; an invalid one is dropped with a warning. Returns unsubscribe. */
  onMenu(listener: (action: MenuAction) => void): () => void;
  /** Tells the host the page's language, for its menu (nothing to tell in a browser). */
  setLocale(locale: Locale): Promise<void>;
}

const browserHost: DesktopHost = {
  capabilities: async () => BROWSER_CAPABILITIES,
  pick: async () => null,
  onMenu: () => () => {},
  setLocale: async () => {},
};

function electronHost(bridge: CairnBridge): DesktopHost {
  const answer = (command: keyof typeof hostCommands, outcome: unknown): unknown => {
    const wire = WireResult.parse(outcome);
    if (!wire.ok) throw errorFromWire(wire.error, 'desktop');
    const parsed = hostCommands[command].response.safeParse(wire.result);
    if (!parsed.success) throw new CairnError('INTERNAL', `The answer to ${command} does not match the contract`);
    return parsed.data;
  };
  return {
    capabilities: async () => HostCapabilities.parse(answer('host:capabilities', await bridge['host:capabilities']({}))),
    async pick(command, request) {
      const invoke = bridge[command] as (request: unknown) => Promise<unknown>;
      return answer(command, await invoke(request)) as string | null;
    },
    async setLocale(locale) {
      answer('host:setLocale', await bridge['host:setLocale']({ locale }));
    },
    onMenu: (listener) =>
      bridge.onMenu((action) => {
        const parsed = MenuAction.safeParse(action);
        if (parsed.success) listener(parsed.data);
        else console.warn('Cairn: dropped a menu action that does not match the contract');
      }),
  };
}

/** The host of this page: Electron's when the preload set a bridge with host commands, else none. */
export function createDesktopHost(win: Pick<Window, 'cairn'> = window): DesktopHost {
  const bridge = win.cairn;
  return bridge && typeof bridge['host:capabilities'] === 'function' ? electronHost(bridge) : browserHost;
}
