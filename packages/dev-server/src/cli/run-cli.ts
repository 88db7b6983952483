// `mailroom dev` as a function: parse the arguments, start the server, print its banner and the
// variables an app needs.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createLogger } from '../events';
import { DEFAULT_PORT } from '../settings';
import { startDevServer, type DevServer } from '../start-dev-server';
import { DEFAULT_APP_URL, parseCliArgs, USAGE } from './parse-cli-args';

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

/**
 * The `MAILROOM_*` variables an app needs to talk to this server, one `NAME=value` per line, ready to
 * paste into a `.env`: with them alone `client.send(def, payload)` works, `MAILROOM_APP_URL` included.
 *
 * @example environmentLines(server, 'http://localhost:3000').join('\n')
 */
export function environmentLines(server: DevServer, appUrl: string = DEFAULT_APP_URL): string[] {
  return [
    `MAILROOM_APP_URL=${appUrl}`,
    `MAILROOM_URL=${server.url}`,
    `MAILROOM_TOKEN=${server.token}`,
    `MAILROOM_CURRENT_SIGNING_KEY=${server.currentSigningKey}`,
    `MAILROOM_NEXT_SIGNING_KEY=${server.nextSigningKey}`,
    `MAILROOM_MANAGEMENT_URL=${server.managementUrl}`,
    `MAILROOM_MANAGEMENT_USER=${server.managementUser}`,
    `MAILROOM_MANAGEMENT_PASSWORD=${server.managementPassword}`,
    `MAILROOM_HEADER_PREFIX=${server.headerPrefix}`,
    `MAILROOM_ISSUER=${server.issuer}`,
  ];
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
    'Press Ctrl+C to stop.',
    '',
  ].join('\n');
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
