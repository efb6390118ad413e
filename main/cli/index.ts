/**
 * `cairn`: the command line of docs/ARCHITECTURE.md#the-cli. Each command lives in ./commands; all of
 * them print readable text by default and exactly one JSON document with --json.
 */
import { Command } from 'commander';
import { registerIngest } from './commands/ingest.js';
import { registerWatch } from './commands/watch.js';
import { registerBrowse } from './commands/browse.js';
import { registerSkeleton } from './commands/skeleton.js';
import { registerServe } from './commands/serve.js';
import { registerSearch } from './commands/search.js';
import { registerCompress } from './commands/compress.js';
import { registerContext } from './commands/context.js';
import { registerSessions } from './commands/sessions.js';
import { registerMemories } from './commands/memories.js';
import { registerMcp } from './commands/mcp.js';
import { registerPortability } from './commands/portability.js';

const program = new Command();
program
  .name('cairn')
  .description('Cairn: turn folders into a layered context tree and conversations into memories.')
  .version('0.1.0')
  .showHelpAfterError('(run with --help for usage)')
  .addHelpText(
    'after',
    `
Workspace: --workspace DIR, else $CAIRN_WORKSPACE, else the app-data folder.
Examples:
  cairn ingest ~/notes                     # build ctx://resources/notes/
  cairn tree ctx://resources/notes/        # browse it
  cairn cat ctx://resources/notes/todo.md  # read a node (--level 0|1|2)
  cairn search "uplink retries"            # hybrid search (--mode, --level, --json)`,
  );

registerIngest(program);
registerWatch(program);
registerBrowse(program);
registerSkeleton(program);
registerServe(program);
registerSearch(program);
registerCompress(program);
registerContext(program);
registerSessions(program);
registerMemories(program);
registerMcp(program);
registerPortability(program);

await program.parseAsync(process.argv);
