/**
 * Removing and renaming a node from the Explorer (issue 21): the engine's fs:rm and fs:mv, then
 * the tree on show follows (the parent's listing again, the selection moved or dropped).
 */
import type { CommandName, CommandRequest, CommandResponse } from '../../../shared/contracts/api';
import { isWithinUri, parentUri } from '../../../shared/uri';

/** What these need of the client and of the explorer store (narrow, so they run in Node's tests against a real engine). */
export interface EngineCaller {
  call<K extends CommandName>(command: K, request: CommandRequest<K>): Promise<CommandResponse<K>>;
}
export interface ExplorerHandle {
  getState(): { selected: string | null; load(uri: string, force?: boolean): Promise<void>; reveal(uri: string): Promise<void> };
  setState(patch: { selected: null; details: null }): void;
}

export interface RemovalPlan {
  files: number;
  sections: number;
  nodes: number;
}

/** What a removal takes with it, for the confirmation (nothing is removed). */
export async function planRemoval(client: EngineCaller, uri: string): Promise<RemovalPlan> {
  const { files, sections, nodes } = await client.call('fs:rm', { uri, dryRun: true });
  return { files, sections, nodes };
}

/** A new name is one path segment: not empty, not starting with a dot, no `/`. */
export function isValidName(name: string): boolean {
  const trimmed = name.trim();
  return trimmed.length > 0 && !trimmed.startsWith('.') && !trimmed.includes('/') && !trimmed.includes('\\');
}

/** The URI `uri` gets when renamed to `name` in the same directory. */
export function renamedUri(uri: string, name: string): string {
  const parent = parentUri(uri)!;
  return `${parent}${name.trim()}${uri.endsWith('/') ? '/' : ''}`;
}

export async function removeNode(client: EngineCaller, explorer: ExplorerHandle, uri: string): Promise<void> {
  await client.call('fs:rm', { uri });
  const state = explorer.getState();
  if (state.selected && isWithinUri(uri, state.selected)) explorer.setState({ selected: null, details: null });
  const parent = parentUri(uri);
  if (parent) await state.load(parent, true);
}

/** Renames `uri` to `name`; returns the new URI. A selection inside it moves with it. */
export async function renameNode(client: EngineCaller, explorer: ExplorerHandle, uri: string, name: string): Promise<string> {
  const { to } = await client.call('fs:mv', { from: uri, to: renamedUri(uri, name) });
  const state = explorer.getState();
  const selected = state.selected;
  const parent = parentUri(uri);
  if (parent) await state.load(parent, true);
  if (selected && isWithinUri(uri, selected)) await state.reveal(to + selected.slice(uri.length));
  return to;
}
