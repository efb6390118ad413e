/**
 * Where Cairn keeps a workspace when none is given: the per-OS application-data folder.
 * Linux: $XDG_DATA_HOME/cairn (~/.local/share/cairn); macOS: ~/Library/Application Support/Cairn;
 * Windows: %APPDATA%\Cairn.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Cairn');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Cairn');
  return join(env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'cairn');
}

/** `--workspace DIR`, else CAIRN_WORKSPACE, else `{app data}/workspace`. */
export function resolveWorkspace(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (flag) return resolve(flag);
  if (env.CAIRN_WORKSPACE) return resolve(env.CAIRN_WORKSPACE);
  return join(defaultDataDir(env), 'workspace');
}
