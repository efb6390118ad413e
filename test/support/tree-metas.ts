/** Every node under a tree's root with its meta, walked through the engine's own commands. */
import type { Engine } from '../../main/engine/engine.js';
import type { NodeMeta } from '../../shared/types/node.js';

/** Every node under `root` with its meta (the root included), by URI. */
export async function metasUnder(e: Pick<Engine, 'call'>, root: string): Promise<Map<string, NodeMeta>> {
  const out = new Map<string, NodeMeta>();
  const walk = async (uri: string) => {
    const meta = (await e.call('fs:stat', { uri })).meta;
    if (meta) out.set(uri, meta);
    if (!uri.endsWith('/')) return;
    for (const entry of (await e.call('fs:ls', { uri })).entries) await walk(entry.uri);
  };
  await walk(root);
  return out;
}
