/**
 * The desktop host for components: one per page, the menu's actions applied to the stores, and
 * the capabilities that decide whether "Choose…" buttons are shown (never in a browser).
 */
import { useEffect, useState } from 'react';
import { BROWSER_CAPABILITIES, type HostCapabilities } from '../../../shared/contracts/host';
import { createDesktopHost, type DesktopHost } from '../../api/desktop-host';
import { useApp, useStores } from '../../stores/stores-context';
import { applyMenuAction } from './menu-actions';

let host: DesktopHost | null = null;
/** This page's host, made on first use (so a module import touches no `window`). */
export function desktopHost(): DesktopHost {
  return (host ??= createDesktopHost());
}

let capabilities: Promise<HostCapabilities> | null = null;

export function useHostCapabilities(): HostCapabilities {
  const [value, setValue] = useState<HostCapabilities>(BROWSER_CAPABILITIES);
  useEffect(() => {
    let live = true;
    capabilities ??= desktopHost()
      .capabilities()
      .catch(() => BROWSER_CAPABILITIES);
    void capabilities.then((answer) => {
      if (live) setValue(answer);
    });
    return () => {
      live = false;
    };
  }, []);
  return value;
}

/** Runs the application menu's actions while the app is mounted, and keeps the menu in the page's language. */
export function useDesktopMenu(): void {
  const stores = useStores();
  const locale = useApp((s) => s.locale);
  useEffect(() => desktopHost().onMenu((action) => void applyMenuAction(stores, action)), [stores]);
  useEffect(() => {
    // A menu left in the other language is not worth an error on the page.
    desktopHost()
      .setLocale(locale)
      .catch((error: unknown) => console.warn(`Cairn: the menu keeps its language: ${String(error)}`));
  }, [locale]);
}
