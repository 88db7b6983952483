import { parseArgs } from 'node:util';
import { createMessagingClient, MailroomError, type MessagingClient } from '@mailroom/core';
import type { CliIo } from './run-cli';
import { planScheduleSync, readScheduleFile, applyScheduleSync, describeSyncPlan } from './schedules-sync';

// `mailroom <command>` against any service: the hosted one (MAILROOM_URL and MAILROOM_TOKEN, or
// --url and --token) or `mailroom dev`. Every command is a call of the typed client; this file only
// reads the command line, asks before acting on everything, and prints (a table, or --json).

/** Exit codes a script can act on. */
const EXIT = { ok: 0, failed: 1, usage: 2, notFound: 3, refused: 4 } as const;

/** A usage mistake: printed with the command's help, exit 2. */
class UsageError extends Error {}

interface Context {
  client: MessagingClient;
  io: CliIo;
  json: boolean;
  yes: boolean;
  /** Whether a person can answer a question (stdin and stdout are a terminal). */
  interactive: boolean;
  ask(question: string): Promise<boolean>;
  readStdin(): Promise<string>;
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

interface Command {
  /** `dlq list`: the words that name it. */
  name: string;
  summary: string;
  example: string;
  /** Its own flags (the global ones are --url, --token, --json, --yes, --help). */
  options?: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; description: string }>;
  run(context: Context): Promise<void>;
}

const GLOBAL_OPTIONS = {
  url: { type: 'string', description: 'the service URL (default $MAILROOM_URL)' },
  token: { type: 'string', description: 'the token (default $MAILROOM_TOKEN)' },
  json: { type: 'boolean', description: 'print JSON for scripts instead of a table' },
  yes: { type: 'boolean', description: 'do not ask before acting on everything' },
  help: { type: 'boolean', description: 'show this help' },
} as const;

const PAGE_OPTIONS = {
  count: { type: 'string', description: 'how many per page' },
  cursor: { type: 'string', description: 'the page after this cursor' },
} as const;

const DLQ_FILTERS = {
  'message-id': { type: 'string', description: 'only this message' },
  'filter-url': { type: 'string', description: 'only messages to this URL' },
  queue: { type: 'string', description: 'only messages of this queue' },
  status: { type: 'string', description: 'only this response status' },
} as const;

/** A table of `rows` with `columns`, or the JSON of `data` with --json. */
function print(context: Context, data: unknown, columns: string[], rows: Array<Record<string, unknown>>): void {
  if (context.json) {
    context.io.out(`${JSON.stringify(data, null, 2)}\n`);
    return;
  }
  if (rows.length === 0) {
    context.io.out('(none)\n');
    return;
  }
  const cell = (value: unknown) =>
    value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  const widths = columns.map((column) => Math.max(column.length, ...rows.map((row) => cell(row[column]).length)));
  const line = (values: string[]) =>
    values
      .map((value, index) => value.padEnd(widths[index]!))
      .join('  ')
      .trimEnd();
  const bold = (text: string) => (context.interactive && !process.env.NO_COLOR ? `\u001b[1m${text}\u001b[22m` : text);
  context.io.out(`${bold(line(columns))}\n${rows.map((row) => line(columns.map((column) => cell(row[column])))).join('\n')}\n`);
}

const text = (context: Context, name: string): string | undefined => {
  const value = context.values[name];
  return typeof value === 'string' ? value : undefined;
};
const count = (context: Context): number | undefined => {
  const value = text(context, 'count');
  if (value === undefined) return undefined;
  if (!/^[1-9]\d*$/.test(value)) throw new UsageError(`--count must be a whole number above 0, got "${value}"`);
  return Number(value);
};
const time = (at: unknown) => (typeof at === 'number' ? new Date(at).toISOString() : '');

/** Ids from the command line; at least one unless `orAll` says the command can act on everything. */
function ids(context: Context, what: string): string[] {
  if (context.positionals.length === 0) throw new UsageError(`give one or more ${what} ids`);
  return context.positionals;
}

/** Asks before acting on everything: `--yes` answers for scripts; without a terminal, refuses. */
async function confirm(context: Context, what: string): Promise<void> {
  if (context.yes) return;
  if (!context.interactive) throw new UsageError(`${what}: add --yes to do this without a terminal to ask at`);
  if (!(await context.ask(`${what}? [y/N] `))) throw new UsageError('nothing done');
}

/** Polls a bulk action to its end; on a terminal, draws its progress on stderr. */
async function followBulkAction(context: Context, actionId: string): Promise<{ processed: number; total: number }> {
  for (;;) {
    const action = await context.client.bulkActions.get(actionId);
    if (context.interactive && !context.json) {
      const width = 30;
      const done = action.total === 0 ? width : Math.round((action.processed / action.total) * width);
      context.io.err(`\r[${'#'.repeat(done)}${'.'.repeat(width - done)}] ${action.processed}/${action.total}`);
    }
    if (action.state !== 'IN_PROGRESS') {
      if (context.interactive && !context.json) context.io.err('\n');
      return action;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const dlqFilter = (context: Context) => ({
  ...(text(context, 'message-id') ? { messageId: text(context, 'message-id') } : {}),
  ...(text(context, 'filter-url') ? { url: text(context, 'filter-url') } : {}),
  ...(text(context, 'queue') ? { queueName: text(context, 'queue') } : {}),
  ...(text(context, 'status') ? { responseStatus: Number(text(context, 'status')) } : {}),
});
const hasFilter = (filter: Record<string, unknown>) => Object.keys(filter).length > 0;

const COMMANDS: readonly Command[] = [
  {
    name: 'messages get',
    summary: 'A message not yet delivered',
    example: 'mailroom messages get msg_123',
    run: async (context) => {
      const [id] = ids(context, 'message');
      const message = await context.client.messages.get(id!);
      print(
        context,
        message,
        ['messageId', 'url', 'createdAt', 'notBefore'],
        [{ ...message, createdAt: time(message.createdAt), notBefore: time(message.notBefore) }],
      );
    },
  },
  {
    name: 'messages cancel',
    summary: 'Cancel messages by id, or every pending message with --all',
    example: 'mailroom messages cancel msg_1 msg_2   |   mailroom messages cancel --all --yes',
    options: { all: { type: 'boolean', description: 'every pending message' } },
    run: async (context) => {
      if (context.values.all === true) {
        await confirm(context, 'Cancel every pending message');
        // In the background on the service, followed here with a progress bar on a terminal.
        const { actionId } = await context.client.messages.cancelInBackground({ all: true });
        const action = await followBulkAction(context, actionId);
        return print(context, { cancelled: action.processed, actionId }, ['cancelled'], [{ cancelled: action.processed }]);
      }
      const { cancelled } = await context.client.messages.cancelMany({ messageIds: ids(context, 'message') });
      print(context, { cancelled }, ['cancelled'], [{ cancelled }]);
    },
  },
  {
    name: 'dlq list',
    summary: 'Messages that ran out of retries, newest first',
    example: 'mailroom dlq list --filter-url https://app.example.com/api/orders --count 20',
    options: { ...PAGE_OPTIONS, ...DLQ_FILTERS },
    run: async (context) => {
      const page = await context.client.dlq.list({ ...dlqFilter(context), count: count(context), cursor: text(context, 'cursor') });
      print(
        context,
        page,
        ['dlqId', 'messageId', 'url', 'responseStatus', 'createdAt'],
        page.messages.map((entry) => ({ ...entry, createdAt: time(entry.createdAt) })),
      );
      if (!context.json && page.cursor) context.io.out(`more: --cursor ${page.cursor}\n`);
    },
  },
  {
    name: 'dlq get',
    summary: 'One DLQ entry with its last answer',
    example: 'mailroom dlq get 1795804419065-0',
    run: async (context) => {
      const [id] = ids(context, 'DLQ');
      const entry = await context.client.dlq.get(id!);
      print(context, entry, ['dlqId', 'messageId', 'url', 'responseStatus', 'responseBody'], [entry as Record<string, unknown>]);
    },
  },
  {
    name: 'dlq retry',
    summary: 'Publish DLQ entries again: by id, by filter, or all',
    example: 'mailroom dlq retry --filter-url https://app.example.com/api/orders',
    options: { ...DLQ_FILTERS, all: { type: 'boolean', description: 'every entry' } },
    run: async (context) => {
      const filter = dlqFilter(context);
      if (context.positionals.length > 0) {
        const result = await context.client.dlq.retryMany({ dlqIds: context.positionals });
        return print(context, result, ['retried'], [{ retried: result.responses?.length ?? context.positionals.length }]);
      }
      if (!hasFilter(filter) && context.values.all !== true) throw new UsageError('give DLQ ids, a filter, or --all');
      await confirm(context, hasFilter(filter) ? 'Retry every DLQ entry the filter matches' : 'Retry every DLQ entry');
      const result = await context.client.dlq.retryMany(hasFilter(filter) ? { filter } : { all: true });
      print(context, result, ['retried'], [{ retried: result.responses?.length ?? 0 }]);
    },
  },
  {
    name: 'dlq delete',
    summary: 'Delete DLQ entries: by id, by filter, or all',
    example: 'mailroom dlq delete 1795804419065-0   |   mailroom dlq delete --all --yes',
    options: { ...DLQ_FILTERS, all: { type: 'boolean', description: 'every entry' } },
    run: async (context) => {
      const filter = dlqFilter(context);
      if (context.positionals.length > 0) {
        const result = await context.client.dlq.deleteMany({ dlqIds: context.positionals });
        return print(context, result, ['deleted'], [result as Record<string, unknown>]);
      }
      if (!hasFilter(filter) && context.values.all !== true) throw new UsageError('give DLQ ids, a filter, or --all');
      await confirm(context, hasFilter(filter) ? 'Delete every DLQ entry the filter matches' : 'Delete every DLQ entry');
      const result = await context.client.dlq.deleteMany(hasFilter(filter) ? { filter } : { all: true });
      print(context, result, ['deleted'], [result as Record<string, unknown>]);
    },
  },
  {
    name: 'logs',
    summary: 'Message events, newest first; --follow prints new ones as they come',
    example: 'mailroom logs --message-id msg_123   |   mailroom logs --follow --state ERROR',
    options: {
      ...PAGE_OPTIONS,
      'message-id': { type: 'string', description: 'only this message' },
      state: { type: 'string', description: 'only this state (CREATED, ACTIVE, DELIVERED, ERROR, RETRY, FAILED, CANCELED)' },
      follow: { type: 'boolean', description: 'keep printing new events until interrupted' },
    },
    run: async (context) => {
      const filter = {
        ...(text(context, 'message-id') ? { messageId: text(context, 'message-id') } : {}),
        ...(text(context, 'state') ? { state: text(context, 'state') as never } : {}),
      };
      const columns = ['time', 'state', 'messageId', 'url', 'responseStatus'];
      const rowOf = (event: object): Record<string, unknown> => ({ ...event, time: time((event as { time?: unknown }).time) });
      const page = await context.client.logs.list({ ...filter, count: count(context), cursor: text(context, 'cursor') });
      print(context, page, columns, page.events.map(rowOf));
      if (context.values.follow !== true) return;
      // Polls for events newer than the newest seen; a line each, as JSON lines with --json.
      let since = Math.max(0, ...page.events.map((event) => Number(event.time) || 0));
      const seen = new Set(page.events.map((event) => `${event.time}:${event.messageId}:${event.state}`));
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const newer = (await context.client.logs.list({ ...filter, fromDate: since })).events.reverse();
        for (const event of newer) {
          const key = `${event.time}:${event.messageId}:${event.state}`;
          if (seen.has(key)) continue;
          seen.add(key);
          since = Math.max(since, Number(event.time) || 0);
          context.io.out(
            context.json ? `${JSON.stringify(event)}\n` : `${columns.map((column) => String(rowOf(event)[column] ?? '')).join('  ')}\n`,
          );
        }
      }
    },
  },
  {
    name: 'queues',
    summary: 'Queues with their parallelism and lag',
    example: 'mailroom queues --json',
    run: async (context) => {
      const queues = await context.client.queues.list();
      print(context, queues, ['name', 'parallelism', 'lag', 'paused'], queues as Array<Record<string, unknown>>);
    },
  },
  {
    name: 'url-groups',
    summary: 'URL groups and their endpoints',
    example: 'mailroom url-groups',
    run: async (context) => {
      const groups = await context.client.urlGroups.list();
      print(
        context,
        groups,
        ['name', 'endpoints'],
        groups.map((group) => ({ name: group.name, endpoints: group.endpoints.map((endpoint) => endpoint.url).join(', ') })),
      );
    },
  },
  {
    name: 'schedules list',
    summary: 'Schedules with their cron and next firing',
    example: 'mailroom schedules list',
    run: async (context) => {
      const schedules = await context.client.schedules.list();
      print(
        context,
        schedules,
        ['scheduleId', 'cron', 'destination', 'nextScheduleTime'],
        schedules.map((schedule) => ({ ...schedule, nextScheduleTime: time(schedule.nextScheduleTime) })),
      );
    },
  },
  {
    name: 'schedules sync',
    summary: 'Make the service hold exactly the schedules of a file (JSON, JS or TS): shows the diff, applies with --apply',
    example: 'mailroom schedules sync schedules.ts --apply',
    options: { apply: { type: 'boolean', description: 'make the changes (without it, only show them)' } },
    run: async (context) => {
      const [file] = context.positionals;
      if (!file) throw new UsageError('give the file that lists the schedules');
      const wanted = await readScheduleFile(file);
      const plan = planScheduleSync(wanted, await context.client.schedules.list());
      if (context.json) context.io.out(`${JSON.stringify(plan, null, 2)}\n`);
      else context.io.out(describeSyncPlan(plan));
      const changes = plan.create.length + plan.update.length + plan.delete.length;
      if (changes === 0 || context.values.apply !== true) {
        if (changes > 0 && !context.json) context.io.out('Run again with --apply to make these changes.\n');
        return;
      }
      if (plan.delete.length > 0) await confirm(context, `Delete ${plan.delete.length} schedule(s) not in ${file}`);
      await applyScheduleSync(context.client, plan);
      if (!context.json) context.io.out(`Applied ${changes} change(s).\n`);
    },
  },
  {
    name: 'workflows runs',
    summary: 'Workflow runs, newest first, with their state',
    example: 'mailroom workflows runs --count 10',
    options: { ...PAGE_OPTIONS, 'run-id': { type: 'string', description: 'only this run' } },
    run: async (context) => {
      const page = await context.client.workflows.logs({
        ...(text(context, 'run-id') ? { workflowRunId: text(context, 'run-id') } : {}),
        count: count(context),
        cursor: text(context, 'cursor'),
      });
      print(
        context,
        page,
        ['workflowRunId', 'workflowState', 'workflowUrl', 'workflowRunCreatedAt'],
        page.runs.map((run) => ({ ...run, workflowRunCreatedAt: time(run.workflowRunCreatedAt) })),
      );
    },
  },
  {
    name: 'workflows cancel',
    summary: 'Cancel workflow runs by id',
    example: 'mailroom workflows cancel wfr_1 wfr_2',
    run: async (context) => {
      const result = await context.client.workflows.cancel(ids(context, 'run'));
      print(context, result, ['cancelled'], [result]);
    },
  },
  {
    name: 'workflows dlq',
    summary: 'Failed workflow runs, newest first',
    example: 'mailroom workflows dlq --count 10',
    options: { ...PAGE_OPTIONS },
    run: async (context) => {
      const page = await context.client.workflowDlq.list({ count: count(context), cursor: text(context, 'cursor') });
      print(
        context,
        page,
        ['dlqId', 'workflowRunId', 'workflowUrl', 'responseStatus'],
        page.messages.map((entry) => entry as Record<string, unknown>),
      );
    },
  },
  {
    name: 'workflows restart',
    summary: 'Start failed runs over, each as a new run (by workflow DLQ id)',
    example: 'mailroom workflows restart 1795804419065-0',
    run: async (context) => {
      const runs = await context.client.workflowDlq.restart(ids(context, 'workflow DLQ'));
      print(context, runs, ['workflowRunId', 'workflowCreatedAt'], runs as Array<Record<string, unknown>>);
    },
  },
  {
    name: 'workflows resume',
    summary: 'Resume failed runs from their failed step (by workflow DLQ id)',
    example: 'mailroom workflows resume 1795804419065-0',
    run: async (context) => {
      const runs = await context.client.workflowDlq.resume(ids(context, 'workflow DLQ'));
      print(context, runs, ['workflowRunId', 'workflowCreatedAt'], runs as Array<Record<string, unknown>>);
    },
  },
  {
    name: 'publish',
    summary: 'Publish a message to a URL: the body from --file, or from stdin',
    example: 'echo \'{"orderId":"o-1"}\' | mailroom publish https://app.example.com/api/orders --content-type application/json',
    options: {
      file: { type: 'string', description: 'read the body from this file' },
      'content-type': { type: 'string', description: "the body's type (default application/json)" },
      delay: { type: 'string', description: 'wait before the first attempt, e.g. 10s' },
      retries: { type: 'string', description: 'retries after the first attempt' },
    },
    run: async (context) => {
      const [destination] = context.positionals;
      if (!destination) throw new UsageError('give the destination URL');
      const file = text(context, 'file');
      const body = file ? await (await import('node:fs/promises')).readFile(file, 'utf8') : await context.readStdin();
      const retries = text(context, 'retries');
      const result = await context.client.publish({
        destination,
        body,
        contentType: text(context, 'content-type') ?? 'application/json',
        ...(text(context, 'delay') ? { delay: text(context, 'delay') as never } : {}),
        ...(retries !== undefined ? { retries: Number(retries) } : {}),
      });
      print(context, result, ['messageId'], [result as Record<string, unknown>]);
    },
  },
];

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
  if (error instanceof MailroomError) return { code: EXIT.failed, message };
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
