import type { DlqFilter, MessageFilter, MessagingClient } from '@mailroom/core';
import type { CliIo } from './run-cli';

// What every `mailroom <command>` shares: its context, how it prints (a table or --json), the
// filters it reads, the question before acting on everything, and progress on a terminal.

/** Exit codes a script can act on. */
export const EXIT = { ok: 0, failed: 1, usage: 2, notFound: 3, refused: 4 } as const;

/** A usage mistake: printed with the command's help, exit 2. */
export class UsageError extends Error {}

type OptionSpec = { type: 'string' | 'boolean'; multiple?: boolean; description: string };

export interface Context {
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

export interface Command {
  /** `dlq list`: the words that name it. */
  name: string;
  summary: string;
  example: string;
  /** Its own flags (the global ones are --url, --token, --json, --yes, --help). */
  options?: Record<string, OptionSpec>;
  run(context: Context): Promise<void>;
}

export const PAGE_OPTIONS = {
  count: { type: 'string', description: 'how many per page' },
  cursor: { type: 'string', description: 'the page after this cursor' },
} as const satisfies Record<string, OptionSpec>;

/** The filters of the logs, the DLQ and bulk cancel, as flags (each may be given several times). */
export const MESSAGE_FILTERS = {
  'filter-url': { type: 'string', multiple: true, description: 'only messages to this URL' },
  'url-group': { type: 'string', multiple: true, description: 'only messages of this URL group' },
  queue: { type: 'string', multiple: true, description: 'only messages of this queue' },
  label: { type: 'string', multiple: true, description: 'only messages with this label' },
  'schedule-id': { type: 'string', multiple: true, description: 'only messages of this schedule' },
  'flow-control-key': { type: 'string', multiple: true, description: 'only messages with this flow-control key' },
} as const satisfies Record<string, OptionSpec>;

export const DLQ_FILTERS = {
  ...MESSAGE_FILTERS,
  'message-id': { type: 'string', description: 'only this message' },
  status: { type: 'string', multiple: true, description: 'only this response status' },
} as const satisfies Record<string, OptionSpec>;

const FLAG_OF_FILTER = {
  url: 'filter-url',
  urlGroup: 'url-group',
  queue: 'queue',
  label: 'label',
  scheduleId: 'schedule-id',
  flowControlKey: 'flow-control-key',
} as const;

/** The message filter the flags name (empty when none is given). */
export function messageFilter(context: Context): MessageFilter {
  const filter: Record<string, string[]> = {};
  for (const [name, flag] of Object.entries(FLAG_OF_FILTER)) {
    const values = context.values[flag];
    if (Array.isArray(values) && values.length > 0) filter[name] = values;
  }
  return filter;
}

/** The DLQ filter the flags name: the message filters, a message id and response statuses. */
export function dlqFilter(context: Context): DlqFilter {
  const filter: DlqFilter = { ...messageFilter(context) };
  const messageId = text(context, 'message-id');
  if (messageId !== undefined) filter.messageId = messageId;
  const statuses = context.values.status;
  if (Array.isArray(statuses) && statuses.length > 0) {
    filter.responseStatus = statuses.map((status) => {
      if (!/^[1-5]\d\d$/.test(status)) throw new UsageError(`--status must be an HTTP status such as 500, got "${status}"`);
      return Number(status);
    });
  }
  return filter;
}

export const hasFilter = (filter: object) => Object.keys(filter).length > 0;

/** A table of `rows` with `columns`, or the JSON of `data` with --json. */
export function print(context: Context, data: unknown, columns: string[], rows: Array<Record<string, unknown>>): void {
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

export function text(context: Context, name: string): string | undefined {
  const value = context.values[name];
  return typeof value === 'string' ? value : undefined;
}

/** A whole number above 0 from the flag `name`, if given. */
export function wholeNumber(context: Context, name: string): number | undefined {
  const value = text(context, name);
  if (value === undefined) return undefined;
  if (!/^[1-9]\d*$/.test(value)) throw new UsageError(`--${name} must be a whole number above 0, got "${value}"`);
  return Number(value);
}

/** The flags a message's body and retries come from (`publish`, `schedules create`). */
export const BODY_OPTIONS = {
  file: { type: 'string', description: 'read the body from this file' },
  'content-type': { type: 'string', description: "the body's type (default application/json)" },
  retries: { type: 'string', description: 'retries after the first attempt' },
} as const satisfies Record<string, OptionSpec>;

/** The body from --file, else what `orElse` gives (stdin, or --body). */
export async function bodyOf(
  context: Context,
  orElse: () => string | undefined | Promise<string | undefined>,
): Promise<string | undefined> {
  const file = text(context, 'file');
  return file ? (await import('node:fs/promises')).readFile(file, 'utf8') : orElse();
}

/** --retries as a whole number (0 included), if given. */
export function retriesOf(context: Context): number | undefined {
  const retries = text(context, 'retries');
  if (retries === undefined) return undefined;
  if (!/^\d+$/.test(retries)) throw new UsageError(`--retries must be a whole number, got "${retries}"`);
  return Number(retries);
}

export const time = (at: unknown) => (typeof at === 'number' ? new Date(at).toISOString() : '');

/** The positional ids; at least one. */
export function ids(context: Context, what: string): string[] {
  if (context.positionals.length === 0) throw new UsageError(`give one or more ${what}`);
  return context.positionals;
}

/** Asks before acting on everything: `--yes` answers for scripts; without a terminal, refuses. */
export async function confirm(context: Context, what: string): Promise<void> {
  if (context.yes) return;
  if (!context.interactive) throw new UsageError(`${what}: add --yes to do this without a terminal to ask at`);
  if (!(await context.ask(`${what}? [y/N] `))) throw new UsageError('nothing done');
}

const BAR_WIDTH = 30;

/** Draws a bulk action's progress on stderr, on a terminal only (never into --json or a pipe). */
function drawProgress(context: Context, done: number, total: number | undefined, verb: string): void {
  if (!context.interactive || context.json) return;
  if (total === undefined) {
    context.io.err(`\r${verb} ${done}...`);
    return;
  }
  const filled = total === 0 ? BAR_WIDTH : Math.round((Math.min(done, total) / total) * BAR_WIDTH);
  context.io.err(`\r[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${done}/${total}`);
}

const endProgress = (context: Context) => {
  if (context.interactive && !context.json) context.io.err('\n');
};

/** Polls a bulk action running on the service to its end, drawing its progress. */
export async function followBulkAction(context: Context, actionId: string): Promise<{ processed: number; total: number }> {
  for (;;) {
    const action = await context.client.bulkActions.get(actionId);
    drawProgress(context, action.processed, action.total, '');
    if (action.state !== 'IN_PROGRESS') {
      endProgress(context);
      return action;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Runs a paged bulk call (one batch per call, continued with the answered cursor) to its end,
 * counting on a terminal as it goes: the service does not say beforehand how many there are.
 */
export async function eachBatch(
  context: Context,
  verb: string,
  call: (cursor: string | undefined) => Promise<{ done: number; cursor: string | undefined }>,
): Promise<number> {
  let total = 0;
  let cursor: string | undefined;
  do {
    const batch = await call(cursor);
    if (batch.cursor !== undefined && batch.cursor === cursor) throw new Error(`the service answered the same cursor twice (${cursor})`);
    total += batch.done;
    cursor = batch.cursor;
    drawProgress(context, total, undefined, verb);
  } while (cursor);
  endProgress(context);
  return total;
}
