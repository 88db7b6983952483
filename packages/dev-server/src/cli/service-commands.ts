import { parseArgs } from 'node:util';
import { createMessagingClient } from '@mailroom/core';
import { type Command, type Context, EXIT, UsageError } from './command-kit';
import { MESSAGE_COMMANDS } from './message-commands';
import type { CliIo } from './run-cli';
import { SETUP_COMMANDS } from './setup-commands';

// `mailroom <command>` against any service: the hosted one (MAILROOM_URL and MAILROOM_TOKEN, or
// --url and --token) or `mailroom dev`. Every command is a call of the typed client; this file finds
// the command, reads its flags, makes the client, and turns what failed into an exit code.

const GLOBAL_OPTIONS = {
  url: { type: 'string', description: 'the service URL (default $MAILROOM_URL)' },
  token: { type: 'string', description: 'the token (default $MAILROOM_TOKEN)' },
  json: { type: 'boolean', description: 'print JSON for scripts instead of a table' },
  yes: { type: 'boolean', description: 'do not ask before acting on everything' },
  help: { type: 'boolean', description: 'show this help' },
} as const;

const COMMANDS: readonly Command[] = [...MESSAGE_COMMANDS, ...SETUP_COMMANDS];

/** The command `argv` names (its longest match), and the words after it. */
function findCommand(argv: readonly string[]): { command: Command; rest: string[] } | undefined {
  for (const words of [2, 1]) {
    const name = argv.slice(0, words).join(' ');
    const command = COMMANDS.find((each) => each.name === name);
    if (command) return { command, rest: argv.slice(words) };
  }
  return undefined;
}

/** `--help` for one command, or the list of commands. */
function helpText(command?: Command): string {
  if (!command) {
    const width = Math.max(...COMMANDS.map((each) => each.name.length));
    return [
      'Usage: mailroom <command> [options]',
      '',
      'Commands against a service (the hosted one or mailroom dev), from MAILROOM_URL and MAILROOM_TOKEN or --url and --token:',
      '',
      ...COMMANDS.map((each) => `  ${each.name.padEnd(width)}  ${each.summary}`),
      `  ${'dev'.padEnd(width)}  Start the local dev server (mailroom dev --help)`,
      '',
      'Every command takes --json, --yes and --help. Exit codes: 0 done, 1 failed, 2 usage, 3 not found, 4 refused.',
      '',
    ].join('\n');
  }
  const options = { ...command.options, ...GLOBAL_OPTIONS };
  const width = Math.max(...Object.keys(options).map((name) => name.length)) + 2;
  return [
    `Usage: mailroom ${command.name} [options]`,
    '',
    command.summary,
    '',
    'Options:',
    ...Object.entries(options).map(([name, option]) => `  --${name.padEnd(width)}${option.description}`),
    '',
    `Example: ${command.example}`,
    '',
  ].join('\n');
}

/** What a failed call means to a script: the exit code, and the line to print. */
function failure(error: unknown): { code: number; message: string } {
  if (error instanceof UsageError) return { code: EXIT.usage, message: error.message };
  const status = (error as { status?: number }).status;
  const message = error instanceof Error ? error.message : String(error);
  if (status === 404) return { code: EXIT.notFound, message };
  if (status === 401 || status === 403) return { code: EXIT.refused, message };
  return { code: EXIT.failed, message };
}

/** Runs a service command; answers its exit code. */
export async function runServiceCommand(
  argv: readonly string[],
  io: CliIo,
  environment: {
    env: Readonly<Record<string, string | undefined>>;
    interactive: boolean;
    ask(question: string): Promise<boolean>;
    readStdin(): Promise<string>;
  },
): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    io.out(helpText());
    return argv.length === 0 ? EXIT.usage : EXIT.ok;
  }
  const found = findCommand(argv);
  if (!found) {
    io.err(`mailroom: unknown command "${argv.join(' ')}": run mailroom --help\n`);
    return EXIT.usage;
  }
  const { command, rest } = found;
  let parsed;
  try {
    parsed = parseArgs({ args: rest, allowPositionals: true, strict: true, options: { ...command.options, ...GLOBAL_OPTIONS } });
  } catch (error) {
    io.err(`mailroom ${command.name}: ${(error as Error).message}\n\n${helpText(command)}`);
    return EXIT.usage;
  }
  const { values, positionals } = parsed as { values: Context['values']; positionals: string[] };
  if (values.help === true) {
    io.out(helpText(command));
    return EXIT.ok;
  }
  const baseUrl = (values.url as string | undefined) ?? environment.env.MAILROOM_URL;
  const token = (values.token as string | undefined) ?? environment.env.MAILROOM_TOKEN;
  if (!baseUrl || !token) {
    io.err(
      `mailroom ${command.name}: no service: set MAILROOM_URL and MAILROOM_TOKEN (mailroom dev prints both), or pass --url and --token\n`,
    );
    return EXIT.usage;
  }
  try {
    const client = createMessagingClient({ baseUrl, token, env: environment.env });
    await command.run({ client, io, json: values.json === true, yes: values.yes === true, values, positionals, ...environment });
    return EXIT.ok;
  } catch (error) {
    const { code, message } = failure(error);
    io.err(`mailroom ${command.name}: ${message}\n`);
    return code;
  }
}
