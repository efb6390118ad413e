/**
 * The `cairn` executable's first lines. On Linux, a command that writes the search index in bulk
 * (ingest, reindex, summarize, watch) runs in a child process started with MALLOC_ARENA_MAX=2,
 * unless the variable is already set: LanceDB's native threads (dozens of them in a compaction or
 * an index build) each get a glibc malloc arena, which keeps the memory it once held, and glibc
 * reads the variable only when a process starts, so it cannot be set from inside. Measured on
 * Go's src (bench/RESULTS.md, issue 20, session 8): the peak RSS of a reindex falls by about a
 * quarter, for about 0.1 s of CPU to start a second Node and its ~45 MB while it waits.
 * Other commands (search, cat, ls: short, little native memory) run in this process as before.
 * `CAIRN_RELAUNCH=0` turns the child off.
 *
 * Two more settings that only a process's start can make, both from session 15 (bench/RESULTS.md,
 * issue 20): a fixed MALLOC_MMAP_THRESHOLD_ (MMAP_THRESHOLD), and V8's heap growth fixed
 * (HEAP_GROWTH_FLAG): V8's own choice (up to 4× the heap that survived the last full collection)
 * let the engine thread's heap reach 350 MB of mostly garbage in the summary run that follows an
 * ingest, which the 50k-file ingest still held when LanceDB's final compaction came on top.
 *
 * The child must die with its parent, as a `kill -9` of the command means it (the crash soak
 * depends on it): it kills itself once its parent is gone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { constants as osConstants } from 'node:os';

/** Set in the child's environment to the parent's pid: the process that finds it is the relaunched command. */
const RELAUNCHED = 'CAIRN_RELAUNCHED';
/** How often the child looks whether its parent is still there (see dieWithParent). */
const PARENT_CHECK_MS = 250;

/** Commands whose peak memory is LanceDB's (compactions, index builds) and that run long enough for a start-up to be noise. */
const BULK_COMMANDS = new Set(['ingest', 'reindex', 'summarize', 'watch']);

/**
 * How far a thread's heap may grow past what survived its last full collection before the next
 * one: 30 % (V8 picks between 10 % and 300 % from how fast it collects; near 300 % in a bulk
 * command, whose threads allocate fast). Its cost is more frequent full collections, mostly on
 * V8's helper thread (measured in session 15). A flag given on the command line wins.
 */
export const HEAP_GROWTH_FLAG = '--heap-growing-percent=30';

/** The Node flags the child starts with: this process's, plus the heap growth unless one is given. */
export function childExecArgv(execArgv: readonly string[]): string[] {
  const given = execArgv.some((arg) => /^--heap[-_]growing[-_]percent(=|$)/.test(arg));
  return given ? [...execArgv] : [...execArgv, HEAP_GROWTH_FLAG];
}

/**
 * glibc's MALLOC_MMAP_THRESHOLD_ for the child: blocks from 128 KB up get their own mapping,
 * which goes back to the system when freed. That is glibc's starting threshold, but left to
 * itself glibc raises it (up to 32 MB) each time such a block is freed, after which LanceDB's
 * large buffers (Arrow batches, file reads, index pages in a compaction) come from the arenas
 * and stay resident once freed. Fixed, a summary run over the 50k-file tree peaked about 80 MB
 * lower, for about 1.5 s more system time in its 25 s (bench/RESULTS.md, issue 20, session 15).
 */
const MMAP_THRESHOLD = String(128 * 1024);

/** The command a command line names: its first word that is not a flag. */
function commandOf(args: readonly string[]): string | undefined {
  return args.find((arg) => !arg.startsWith('-'));
}

export function shouldRelaunch(args: readonly string[], env: NodeJS.ProcessEnv, platform: NodeJS.Platform): boolean {
  if (platform !== 'linux' || env.MALLOC_ARENA_MAX !== undefined || env[RELAUNCHED] !== undefined || env.CAIRN_RELAUNCH === '0') return false;
  const command = commandOf(args);
  return command !== undefined && BULK_COMMANDS.has(command);
}

/** Runs this command line again in a child with MALLOC_ARENA_MAX=2, and exits as it does. */
export function relaunch(): void {
  // The signal handlers come first: the child exists as soon as spawn forks, and a Ctrl-Z that
  // reached this process before its handler would stop it alone, leaving the child running
  // (seen under load, when the kernel ran the new child before this process went on).
  const started: { child?: ChildProcess } = {};
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (started.child) started.child.kill(signal);
      else process.exit(128 + osConstants.signals[signal]);
    });
  }
  // Ctrl-Z stops the terminal's foreground group, which is this process only: stop the child
  // with it, and wake it when the shell's `fg`/`bg` wakes this one (SIGCONT).
  process.on('SIGTSTP', () => {
    started.child?.kill('SIGSTOP');
    process.kill(process.pid, 'SIGSTOP');
  });
  process.on('SIGCONT', () => started.child?.kill('SIGCONT'));
  const child = (started.child = spawn(process.execPath, [...childExecArgv(process.execArgv), ...process.argv.slice(1)], {
    stdio: 'inherit',
    // Its own process group, so a Ctrl-C in the terminal reaches the child once, passed on above,
    // exactly as a SIGINT sent to this process does (a second one would end a command at once).
    detached: true,
    env: { ...process.env, MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ ?? MMAP_THRESHOLD, [RELAUNCHED]: String(process.pid) },
  }));
  child.on('error', (error) => {
    process.stderr.write(`cairn: could not start the command: ${error.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    if (signal) {
      // Die of the same signal, so the caller sees what the command died of.
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code ?? 1);
  });
}

/** In the relaunched child: true when it is one (then it dies with its parent); false otherwise. */
export function asRelaunchedChild(): boolean {
  if (process.env[RELAUNCHED] === undefined) return false;
  dieWithParent();
  return true;
}

function dieWithParent(): void {
  const parent = Number(process.env[RELAUNCHED]);
  // Not passed on to the processes the command starts (git; the workers are threads).
  delete process.env[RELAUNCHED];
  // Once the parent is gone, the child is someone else's (init's): it dies as the parent did.
  // Polled, since Node tells a child nothing when its parent is killed; a quarter second is
  // what a kill -9 of the command may let the work go on. The parent's pid comes from the
  // parent, as it may be killed before this line runs.
  const check = () => {
    if (process.ppid !== parent) process.kill(process.pid, 'SIGKILL');
  };
  check();
  setInterval(check, PARENT_CHECK_MS).unref();
}
