/**
 * Before an uploaded folder is ingested: does its name clash with a tree of another source?
 * A re-upload (the same upload path) or a tree updated from this upload before is no clash: the
 * engine updates it in place. Otherwise the Home view asks "update it, or add as a copy?".
 */
import type { CommandName, CommandRequest, CommandResponse } from '../../../shared/contracts/api';
import { CairnError } from '../../../shared/errors';
import { scopeRootUri, type IngestScope } from '../../../shared/uri';

export interface EngineCaller {
  call<K extends CommandName>(command: K, request: CommandRequest<K>): Promise<CommandResponse<K>>;
}

/** The root an upload of `path` would clash with, or null. */
export async function uploadClash(client: EngineCaller, path: string, scope: IngestScope): Promise<string | null> {
  const name = path.split(/[\\/]/).filter(Boolean).at(-1);
  if (!name) return null;
  const root = `${scopeRootUri(scope)}${name}/`;
  try {
    const stat = await client.call('fs:stat', { uri: root });
    const meta = stat.meta as { sources?: string[]; source_path?: string } | null | undefined;
    const sources = meta?.sources ?? (meta?.source_path ? [meta.source_path] : []);
    return sources.includes(path) ? null : root;
  } catch (error) {
    if (CairnError.is(error, 'NOT_FOUND')) return null;
    throw error;
  }
}
