import { createLogger } from '../log';
import { DEFAULT_PORT } from '../settings';
import { startDevServer, type DevServer } from '../start-dev-server';
import { startBanner } from './banner';
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
export async function runCli(argv: readonly string[], io: CliIo): Promise<{ exitCode: number } | { server: DevServer }> {
  const command = parseCliArgs(argv);
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
    io.out(startBanner(server, command.appUrl));
    return { server };
  } catch (error) {
    io.err(`mailroom: could not start the dev server: ${startFailure(error, command.options.port)}\n`);
    return { exitCode: 1 };
  }
}

/** What to tell a person whose server did not start; a taken port says how to pick another. */
function startFailure(error: unknown, port: number | undefined): string {
  const message = error instanceof Error ? error.message : String(error);
  if ((error as NodeJS.ErrnoException | undefined)?.code !== 'EADDRINUSE') return message;
  return `${message}. Port ${port ?? DEFAULT_PORT} is taken (another mailroom dev?): stop what uses it, or start on another with --port <n> (--port 0 picks a free one).`;
}
