/**
 * The built CLI (dist-main/cli.js) as a user runs it, for tests that talk to a server in this
 * process (the mock OpenAI server): the child runs asynchronously, so the server keeps answering.
 * The environment's `OPENAI_*` and `CAIRN_LLM_*` variables are left out, so only the flags a test
 * gives configure an LLM.
 *
 * @example
 * beforeAll(buildCli, 120_000);
 * const { code, stdout } = await runCli(['sessions', 'analyze', 'c1', '--llm-base-url', server.url], { CAIRN_WORKSPACE: ws });
 */
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '../..');
export const CLI = join(ROOT, 'dist-main/cli.js');

/** `npm run -s build:main`: the bundle of the code as it is now. */
export function buildCli(): void {
  execFileSync(process.execPath, [join(ROOT, 'scripts/build-main.mjs')], { cwd: ROOT });
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OPENAI_|CAIRN_LLM_)/.test(k)));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...base, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
