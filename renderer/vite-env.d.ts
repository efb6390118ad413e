/// <reference types="vite/client" />
import type { CairnBridge } from '../shared/contracts/wire';

declare global {
  interface Window {
    /** Set by Electron's preload; absent in a browser, where the client uses the WebSocket. */
    readonly cairn?: CairnBridge;
  }
}
