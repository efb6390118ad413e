/**
 * `cairn`: the command line of docs/ARCHITECTURE.md#the-cli. Each command lives in ./commands; all of
 * them print readable text by default and exactly one JSON document with --json. Whatever fails,
 * and wherever (in an action, while the engine opens or closes, in a stray promise), it reaches a
 * person as one line and a documented exit code (errors.ts), through reportError.
 */
import { Command, CommanderError } from 'commander';
import { CairnError } from '../../shared/errors.js';
import { EXIT_CODES, EXIT_CODES_HELP } from './errors.js';
import { reportError, setCommandPath, type OutputOptions } from './output.js';
import { registerIngest } from './commands/ingest.js';
import { registerWatch } from './commands/watch.js';
import { registerSummarize } from './commands/summarize.js';
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
import { registerManage } from './commands/manage.js';
import { registerSkills } from './commands/skills.js';

/** How errors are printed: from the command line until the action starts, then from its parsed flags. */
const output: OutputOptions = { json: process.argv.includes('--json'), verbose: process.argv.includes('--verbose') || process.argv.includes('-v') };

// Set before the commands are added, so every command inherits them: commander throws its usage
// errors (unknown flag, missing argument) instead of printing them and exiting, and they are
// printed below like every other error.
const program = new Command();
program
  .exitOverride()
  .configureOutput({ outputError: () => undefined })
  .name('cairn')
  .description('Cairn: turn folders into a layered context tree and conversations into memories.')
  .version('0.1.0')
  .addHelpText(
    'after',
    `
Workspace: --workspace DIR, else $CAIRN_WORKSPACE, else the app-data folder.
Examples:
  cairn ingest ~/notes                     # build ctx://resources/notes/
  cairn tree ctx://resources/notes/        # browse it
  cairn cat ctx://resources/notes/todo.md  # read a node (--level 0|1|2)
  cairn search "uplink retries"            # hybrid search (--mode, --level, --json)

Errors: one line on stderr (with --json, one JSON document on stdout); --verbose adds the stack.
${EXIT_CODES_HELP}`,
  );

registerIngest(program);
registerWatch(program);
registerSummarize(program);
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
registerManage(program);
registerSkills(program);

/** The command a command line names (`sessions import`), for the usage advice and the process title. */
function commandPathOf(args: string[]): string[] {
  const path: string[] = [];
  let current: Command = program;
  for (const arg of args) {
    const next = current.commands.find((c) => c.name() === arg || c.aliases().includes(arg));
    if (!next) break;
    path.push(next.name());
    current = next;
  }
  return path;
}

const commandPath = commandPathOf(process.argv.slice(2));
setCommandPath(commandPath.join(' '));
// `ps` shows what runs, and a workspace lock this process takes names it ("cairn ingest").
if (commandPath.length > 0) process.title = `cairn ${commandPath.join(' ')}`;

program.hook('preAction', (_program, action) => {
  const flags = action.opts<{ json?: boolean; verbose?: boolean }>();
  output.json = flags.json === true;
  output.verbose = flags.verbose === true;
});

/** The last resort: an error nothing else caught. The process's state is unknown, so it ends here. */
const fatal = (error: unknown) => {
  reportError(error, output);
  process.exit(process.exitCode || EXIT_CODES.bug);
};
process.on('uncaughtException', fatal);
process.on('unhandledRejection', fatal);
// A reader that stops early (`cairn tree … | head`) closes the pipe: the rest is not wanted, so
// the command ends quietly, as Unix tools do, instead of reporting a failed write.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode || EXIT_CODES.ok);
    fatal(error);
  });
}

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // --help and --version end here too; they printed what was asked.
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') process.exitCode = EXIT_CODES.ok;
    // A command group named without a subcommand (`cairn`, `cairn sessions`) printed its help on stderr.
    else if (error.code === 'commander.help') process.exitCode = EXIT_CODES.usage;
    else reportError(new CairnError('INVALID_INPUT', error.message.replace(/^error: /, '')), output);
  } else {
    reportError(error, output);
  }
}
