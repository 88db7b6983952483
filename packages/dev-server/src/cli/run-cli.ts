// `mailroom dev` as a function: parse the arguments, start the server, print its banner and the
// variables an app needs.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createLogger } from '../events';
import { DEFAULT_PORT, MCP_PATH } from '../settings';
import { environmentLines, startDevServer, type DevServer } from '../start-dev-server';
import { parseCliArgs, USAGE } from './parse-cli-args';

/** Where the CLI writes; injected by tests. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

/**
 * Runs `mailroom ...`: prints usage for `--help`, or starts the dev server and prints its banner.
 * Resolves with the exit code for usage errors, or with the running server.
 *
 * @example const result = await runCli(['dev', '--port', '0'], { out: console.log, err: console.error });
 */
export async function runCli(
  argv: readonly string[],
  io: CliIo,
  cwd: string = process.cwd(),
): Promise<{ exitCode: number } | { server: DevServer }> {
  const command = parseCliArgs(argv, process.env, await projectDependencies(cwd));
  if (command.kind === 'help') {
    io.out(USAGE);
    return { exitCode: 0 };
  }
  if (command.kind === 'error') {
    io.err(`mailroom: ${command.message}\n\n${USAGE}`);
    return { exitCode: 2 };
  }
  try {
    // Logs go through `io` like everything else the CLI prints.
    const log = command.options.log === 'json' ? 'json' : 'text';
    const server = await startDevServer({ ...command.options, log: createLogger(log, io.out) ?? 'silent' });
    io.out(startBanner(server, command.appUrl, command.appUrlFrom));
    return { server };
  } catch (error) {
    io.err(`mailroom: could not start the dev server: ${startFailure(error, command.options.port)}\n`);
    return { exitCode: 1 };
  }
}

/** The dependency names in `cwd`'s package.json, or none when there is no readable one. */
async function projectDependencies(cwd: string): Promise<string[]> {
  try {
    const manifest = JSON.parse(await readFile(join(cwd, 'package.json'), 'utf8')) as Record<string, unknown>;
    return ['dependencies', 'devDependencies'].flatMap((field) => {
      const deps = manifest[field];
      return deps !== null && typeof deps === 'object' ? Object.keys(deps) : [];
    });
  } catch {
    return [];
  }
}

/** What to tell a person whose server did not start; a taken port says how to pick another. */
function startFailure(error: unknown, port: number | undefined): string {
  const message = error instanceof Error ? error.message : String(error);
  if ((error as NodeJS.ErrnoException | undefined)?.code !== 'EADDRINUSE') return message;
  return `${message}. Port ${port ?? DEFAULT_PORT} is taken (another mailroom dev?): stop what uses it, or start on another with --port <n> (--port 0 picks a free one).`;
}

/** What `mailroom dev` prints on start: where it listens, the credentials, and the variables to paste. */
function startBanner(server: DevServer, appUrl: string, appUrlFrom: string): string {
  const rows: Array<[string, string]> = [
    ['App URL', `${appUrl} (${appUrlFrom})`],
    ['Console', server.consoleUrl],
    ['Messaging URL', server.url],
    ['Management URL', server.managementUrl],
    ['Token', server.token],
    ['Read-only token', server.readOnlyToken],
    ['Management user', server.managementUser],
    ['Management password', server.managementPassword],
    ['Current signing key', server.currentSigningKey],
    ['Next signing key', server.nextSigningKey],
    ['Header prefix', server.headerPrefix],
    ['Issuer', server.issuer],
    ['Plan', server.plan],
    ['Data', server.dataDir ?? 'in memory (use --data-dir to keep messages across restarts)'],
    ...(server.otlpTracesUrl ? [['Traces', `a span per attempt of a traced message, to ${server.otlpTracesUrl}`] as [string, string]] : []),
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  return [
    'Mailroom dev server',
    '',
    ...rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`),
    '',
    'Environment for your app (.env):',
    '',
    ...environmentLines(server, appUrl).map((line) => `  ${line}`),
    '',
    ...serviceSdkLines(server),
    ...mcpLines(server),
    'Press Ctrl+C to stop.',
    '',
  ].join('\n');
}

/** The MCP endpoint and one line per coding agent to add it (docs/mcp.md). */
function mcpLines(server: DevServer): string[] {
  const url = `${server.url}${MCP_PATH}`;
  const authorization = `Bearer ${server.token}`;
  const config = { url, headers: { Authorization: authorization } };
  return [
    `For coding agents, MCP at ${url} (the read-only token gets only the read tools):`,
    '',
    `  Claude Code  claude mcp add --transport http mailroom ${url} --header "Authorization: ${authorization}"`,
    `  Cursor       .cursor/mcp.json: ${JSON.stringify({ mcpServers: { mailroom: config } })}`,
    `  VS Code      code --add-mcp '${JSON.stringify({ name: 'mailroom', type: 'http', ...config })}'`,
    '',
  ];
}

/** With the service's prefix, the variables its own SDKs read (`@upstash/qstash`, `@upstash/workflow`). */
function serviceSdkLines(server: DevServer): string[] {
  if (server.headerPrefix !== 'Upstash') return [];
  return [
    "For the service's own SDKs (@upstash/qstash, @upstash/workflow):",
    '',
    `  QSTASH_URL=${server.url}`,
    `  QSTASH_TOKEN=${server.token}`,
    `  QSTASH_CURRENT_SIGNING_KEY=${server.currentSigningKey}`,
    `  QSTASH_NEXT_SIGNING_KEY=${server.nextSigningKey}`,
    '',
  ];
}
