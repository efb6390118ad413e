/** fs:ls, fs:read, fs:stat and fs:tree: browsing the ContextFS tree, spread into the engine's handlers. */
import type { CommandHandlers } from '../command-handlers.js';
import type { ContextFS } from './context-fs.js';

export function treeHandlers(fs: ContextFS): Pick<CommandHandlers, 'fs:ls' | 'fs:read' | 'fs:stat' | 'fs:tree'> {
  return {
    'fs:ls': async (request) => {
      const { uri } = await fs.canonicalUri(request.uri);
      return { uri, entries: await fs.ls(uri) };
    },
    'fs:read': async (request) => {
      const { uri } = await fs.canonicalUri(request.uri);
      return { uri, level: request.level, content: await fs.read(uri, request.level) };
    },
    'fs:stat': async (request) => fs.stat(request.uri),
    'fs:tree': async (request) => ({ root: await fs.tree(request.uri, request.depth, request.maxChildren) }),
  };
}
