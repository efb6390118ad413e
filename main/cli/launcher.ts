/**
 * The `cairn` executable: a bulk command may run again in a child process first (relaunch.ts),
 * so nothing heavy is imported before that is decided.
 */
import { asRelaunchedChild, relaunch, shouldRelaunch } from './relaunch.js';

if (!asRelaunchedChild() && shouldRelaunch(process.argv.slice(2), process.env, process.platform)) relaunch();
else await import('./index.js');
