/**
 * The preload: exposes `window.cairn` with exactly one function per contract command and per
 * host command (shared/contracts/host.ts) plus `onEvent`, `onMenu` and `pathForFile`, never
 * `ipcRenderer` itself. It imports only types from shared/ (a sandboxed preload can require
 * nothing but `electron`), so the channel names are spelled here; `CairnBridge`
 * makes a command added to the contract a type error until it is added below, and a test checks
 * the channels against `ipcChannel`.
 */
import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron';
import type { CommandName, CommandRequest } from '../../shared/contracts/api.js';
import type { HostCommandName, HostCommandRequest } from '../../shared/contracts/host.js';
import type { CairnBridge, WireResult } from '../../shared/contracts/wire.js';

const invoke =
  <K extends CommandName>(command: K) =>
  (request: CommandRequest<K>): Promise<WireResult> =>
    ipcRenderer.invoke(`cairn:${command}`, request) as Promise<WireResult>;

const invokeHost =
  <K extends HostCommandName>(command: K) =>
  (request: HostCommandRequest<K>): Promise<WireResult> =>
    ipcRenderer.invoke(`cairn:${command}`, request) as Promise<WireResult>;

export const bridge: CairnBridge = {
  'ingest:start': invoke('ingest:start'),
  'ingest:cancel': invoke('ingest:cancel'),
  'ingest:recent': invoke('ingest:recent'),
  'ingest:sample': invoke('ingest:sample'),
  'fs:ls': invoke('fs:ls'),
  'fs:read': invoke('fs:read'),
  'fs:stat': invoke('fs:stat'),
  'fs:tree': invoke('fs:tree'),
  'fs:rm': invoke('fs:rm'),
  'fs:mv': invoke('fs:mv'),
  'summarize:run': invoke('summarize:run'),
  'summarize:estimate': invoke('summarize:estimate'),
  'compress:run': invoke('compress:run'),
  'context:pack': invoke('context:pack'),
  'search:query': invoke('search:query'),
  'index:rebuild': invoke('index:rebuild'),
  'memories:list': invoke('memories:list'),
  'memories:get': invoke('memories:get'),
  'memories:edit': invoke('memories:edit'),
  'memories:forget': invoke('memories:forget'),
  'memories:history': invoke('memories:history'),
  'memories:search': invoke('memories:search'),
  'memories:commit': invoke('memories:commit'),
  'sessions:import': invoke('sessions:import'),
  'sessions:list': invoke('sessions:list'),
  'sessions:get': invoke('sessions:get'),
  'sessions:analyze': invoke('sessions:analyze'),
  'sessions:commit': invoke('sessions:commit'),
  'sessions:propose': invoke('sessions:propose'), 'sessions:accept': invoke('sessions:accept'), 'sessions:reject': invoke('sessions:reject'),
  'sessions:stats': invoke('sessions:stats'),
  'export:run': invoke('export:run'),
  'import:run': invoke('import:run'),
  'settings:get': invoke('settings:get'),
  'settings:set': invoke('settings:set'),
  'settings:test': invoke('settings:test'),
  'llm:stats': invoke('llm:stats'),
  'skills:add': invoke('skills:add'),
  'skills:list': invoke('skills:list'),
  'skills:read': invoke('skills:read'),
  'host:capabilities': invokeHost('host:capabilities'),
  'host:pickFolder': invokeHost('host:pickFolder'),
  'host:pickFile': invokeHost('host:pickFile'),
  'host:pickSavePath': invokeHost('host:pickSavePath'),
  'host:setLocale': invokeHost('host:setLocale'),
  pathForFile: (file) => webUtils.getPathForFile(file),
  onEvent(listener) {
    const handler = (_event: IpcRendererEvent, batch: unknown) => listener(Array.isArray(batch) ? batch : []);
    ipcRenderer.on('cairn:events', handler);
    return () => {
      ipcRenderer.removeListener('cairn:events', handler);
    };
  },
  onMenu(listener) {
    const handler = (_event: IpcRendererEvent, action: unknown) => listener(action);
    ipcRenderer.on('cairn:menu', handler);
    return () => {
      ipcRenderer.removeListener('cairn:menu', handler);
    };
  },
};

contextBridge.exposeInMainWorld('cairn', bridge);
