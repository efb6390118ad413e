/**
 * `cairn mcp [--workspace DIR] [--allow-write]`: the workspace as a Model Context Protocol server
 * over stdio (main/mcp/server.ts), for Claude Desktop, Claude Code, Cursor and other MCP clients.
 * stdout carries the protocol and nothing else; logs go to stderr. It stops when the client
 * closes stdin, or on SIGINT/SIGTERM.
 */
import type { Command } from 'commander';
import type { Engine } from '../../engine/engine.js';
import { addIndexOptions, indexConfig, type IndexFlags } from '../index-config.js';
import { reportError, stderrLogger } from '../output.js';

interface McpFlags extends IndexFlags {
  workspace?: string;
  allowWrite?: boolean;
  verbose?: boolean;
}

export function registerMcp(program: Command): void {
  addIndexOptions(
    program
      .command('mcp')
      .description('Serve the workspace to an AI agent over the Model Context Protocol (stdio): search, read, ls, context, list_skills, read_skill; remember, forget, add_skill, add_resource with --allow-write')
      .option('-w, --workspace <dir>', 'workspace folder')
      .option('--allow-write', 'offer the remember, forget, add_skill and add_resource tools (read-only without it)')
      .option('-v, --verbose', 'log more on stderr'),
  )
    .addHelpText(
      'after',
      `
Tools: search, read, ls, context, list_skills, read_skill (+ remember, forget, add_skill, add_resource with --allow-write).
Resources: ctx://{+path}; ?level=0|1|2 for a node's abstract, overview or content.
Example (Claude Code): claude mcp add cairn -- npx cairn mcp --workspace ~/cairn`,
    )
    .action(async (flags: McpFlags) => {
      const logger = stderrLogger(Boolean(flags.verbose));
      // The protocol owns stdout: anything a library prints with console.log goes to stderr instead.
      console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);
      let engine: Engine | undefined;
      try {
        const [{ openEngine }, { createMcpServer }, { StdioServerTransport }] = await Promise.all([
          import('../compose.js'),
          import('../../mcp/server.js'),
          import('@modelcontextprotocol/sdk/server/stdio.js'),
        ]);
        engine = await openEngine({ workspace: flags.workspace, workers: 0, logger, index: indexConfig(flags, logger) });
        const server = createMcpServer(engine, { allowWrite: flags.allowWrite === true, version: program.version() ?? '0.1.0' });
        const transport = new StdioServerTransport();
        const closed = new Promise<void>((resolve) => {
          transport.onclose = () => resolve();
          process.stdin.once('end', () => resolve());
          process.once('SIGINT', () => resolve());
          process.once('SIGTERM', () => resolve());
        });
        await server.connect(transport);
        logger.info(`cairn mcp: serving ${engine.workspace}${flags.allowWrite ? ' (read and write)' : ' (read-only)'}`);
        await closed;
        await server.close().catch(() => undefined);
      } catch (error) {
        reportError(error, flags);
      } finally {
        await engine?.dispose();
      }
    });
}
