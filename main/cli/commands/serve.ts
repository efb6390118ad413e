import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { CairnError } from '../../../shared/errors.js';
import type { EngineHost } from '../../host/engine-host.js';
import { bundledFile } from '../../lib/runtime-files.js';
import { reportError, stderrLogger } from '../output.js';
import { addLlmOptions } from '../llm-flags.js';
import type { LlmFlags } from '../llm-config.js';

interface ServeFlags extends LlmFlags {
  port: string;
  workspace?: string;
  renderer?: string;
  verbose?: boolean;
}

export function registerServe(program: Command): void {
  const command = program
    .command('serve')
    .description('Serve the Cairn UI to a browser on 127.0.0.1: the engine, the built renderer, and the contract over a WebSocket, behind a random token')
    .option('-p, --port <n>', 'port on 127.0.0.1 (0 picks a free one)', '0')
    .option('-w, --workspace <dir>', 'workspace folder (default: $CAIRN_WORKSPACE, else the app-data folder)')
    .option('--renderer <dir>', 'the built renderer to serve (default: dist/renderer beside the CLI, built once if missing in the repository; `npm run build:web` builds it)')
    .option('-v, --verbose', 'log more on stderr');
  addLlmOptions(command)
    .addHelpText(
      'after',
      `
The first line on stdout is the URL to open, token included; logs go to stderr.
Only this machine can connect: the host binds 127.0.0.1, checks the Host and Origin headers,
and refuses any page or WebSocket without the token. Ctrl+C stops it.

LLM: the Settings view sets the server, model and limits (kept in <workspace>/.cairn/settings.json)
and the API key (kept in memory only). --llm-* flags override the saved settings until the next
save; --llm-base-url or --llm-api-key also turns the LLM on. The key is --llm-api-key, else
$OPENAI_API_KEY; it is never written to a file.`,
    )
    .action(async (flags: ServeFlags) => {
      const logger = stderrLogger(Boolean(flags.verbose));
      let engine: EngineHost | null = null;
      try {
        const port = Number(flags.port);
        if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new CairnError('INVALID_INPUT', `--port must be a whole number from 0 to 65535, not ${JSON.stringify(flags.port)}`);
        const [{ findRenderer }, { resolveWorkspace }, { connectionOf }, { EngineHost }, { startWebHost }, { createUploads }] = await Promise.all([
          import('../../host/renderer-dir.js'),
          import('../../host/app-paths.js'),
          import('../../host/engine-connection.js'),
          import('../../host/engine-host.js'),
          import('../../host/web-host.js'),
          import('../../host/upload.js'),
        ]);
        // Before the engine starts: a missing UI is said (or built) first, in one line on stderr.
        const rendererDir = await findRenderer({ ...(flags.renderer !== undefined ? { explicit: flags.renderer } : {}), notice: (line) => process.stderr.write(`${line}\n`) });
        const workspace = resolveWorkspace(flags.workspace);
        // The key and the --llm-* settings reach the engine worker in workerData.llm only.
        const llm = (await import('../llm-config.js')).llmFromFlags(flags, process.env, 'serve');
        const workerUrl = bundledFile('engine.worker.js');
        if (!existsSync(fileURLToPath(workerUrl))) throw new CairnError('NOT_FOUND', `The engine worker ${fileURLToPath(workerUrl)} is missing: run \`npm run build:main\``);
        engine = await EngineHost.start({ workerUrl, workerData: { workspace, llm }, logger });
        // Folders dropped in the browser are uploaded here, then ingested by path (issue 8).
        const uploads = createUploads({ dir: join(workspace, 'uploads') });
        const host = await startWebHost({ engine: connectionOf(engine), rendererDir, port, logger, uploads });
        process.stdout.write(`${host.url}\n`);
        process.stderr.write(`Cairn serves ${workspace} at ${host.origin} (Ctrl+C stops it)\n`);

        const running = engine;
        let stopping = false;
        const stop = async (code: number) => {
          if (stopping) return;
          stopping = true;
          await host.close().catch((error) => logger.warn(`Closing the web host failed: ${String(error)}`));
          await running.dispose().catch((error) => logger.warn(`Stopping the engine failed: ${String(error)}`));
          process.exit(code);
        };
        running.onCrash((error) => {
          logger.error(`${error.message}; stopping`);
          void stop(1);
        });
        process.once('SIGINT', () => void stop(0));
        process.once('SIGTERM', () => void stop(0));
      } catch (error) {
        await engine?.dispose().catch(() => {});
        reportError(error, flags);
      }
    });
}
