import {
  BODY_OPTIONS,
  bodyOf,
  type Command,
  type Context,
  confirm,
  DLQ_FILTERS,
  dlqFilter,
  eachBatch,
  followBulkAction,
  hasFilter,
  ids,
  MESSAGE_FILTERS,
  messageFilter,
  PAGE_OPTIONS,
  print,
  retriesOf,
  text,
  time,
  UsageError,
  wholeNumber,
} from './command-kit';

// Commands on messages in flight and after: one message, bulk cancel, the DLQ, the logs, publish.

/** DLQ retry or delete: by ids, or every entry a filter (or --all) selects, batch after batch. */
async function onDlq(context: Context, action: 'retry' | 'delete'): Promise<void> {
  const verb = action === 'retry' ? 'retried' : 'deleted';
  const run = (selection: Parameters<Context['client']['dlq']['deleteMany']>[0]) =>
    action === 'retry'
      ? context.client.dlq.retryMany(selection).then((result) => ({ done: result.responses?.length ?? 0, cursor: result.cursor }))
      : context.client.dlq.deleteMany(selection).then((result) => ({ done: result.deleted, cursor: result.cursor }));
  const filter = dlqFilter(context);
  if (context.positionals.length > 0) {
    if (hasFilter(filter) || context.values.all === true) throw new UsageError('give DLQ ids, or a filter, or --all: not several');
    const { done } = await run({ dlqIds: context.positionals });
    return print(context, { [verb]: done }, [verb], [{ [verb]: done }]);
  }
  if (!hasFilter(filter) && context.values.all !== true) throw new UsageError('give DLQ ids, a filter, or --all');
  const capitalised = `${action[0]!.toUpperCase()}${action.slice(1)}`;
  await confirm(context, hasFilter(filter) ? `${capitalised} every DLQ entry the filter matches` : `${capitalised} every DLQ entry`);
  const done = await eachBatch(context, verb, (cursor) =>
    run(hasFilter(filter) ? { filter, ...(cursor ? { cursor } : {}) } : { all: true, ...(cursor ? { cursor } : {}) }),
  );
  print(context, { [verb]: done }, [verb], [{ [verb]: done }]);
}

export const MESSAGE_COMMANDS: readonly Command[] = [
  {
    name: 'messages get',
    summary: 'A message not yet delivered',
    example: 'mailroom messages get msg_123',
    run: async (context) => {
      const [id] = ids(context, 'message ids');
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
    summary: 'Cancel messages by id, every pending message a filter matches, or all with --all',
    example: 'mailroom messages cancel msg_1 msg_2   |   mailroom messages cancel --queue orders --yes',
    options: { ...MESSAGE_FILTERS, all: { type: 'boolean', description: 'every pending message' } },
    run: async (context) => {
      const filter = messageFilter(context);
      if (context.positionals.length > 0) {
        if (hasFilter(filter) || context.values.all === true) throw new UsageError('give message ids, or a filter, or --all: not several');
        const { cancelled } = await context.client.messages.cancelMany({ messageIds: context.positionals });
        return print(context, { cancelled }, ['cancelled'], [{ cancelled }]);
      }
      if (!hasFilter(filter) && context.values.all !== true) throw new UsageError('give message ids, a filter, or --all');
      await confirm(context, hasFilter(filter) ? 'Cancel every pending message the filter matches' : 'Cancel every pending message');
      // In the background on the service, followed here with a progress bar on a terminal.
      const { actionId } = await context.client.messages.cancelInBackground(hasFilter(filter) ? { filter } : { all: true });
      const action = await followBulkAction(context, actionId);
      print(context, { cancelled: action.processed, actionId }, ['cancelled'], [{ cancelled: action.processed }]);
    },
  },
  {
    name: 'dlq list',
    summary: 'Messages that ran out of retries, newest first',
    example: 'mailroom dlq list --filter-url https://app.example.com/api/orders --count 20',
    options: { ...PAGE_OPTIONS, ...DLQ_FILTERS },
    run: async (context) => {
      const page = await context.client.dlq.list({
        ...dlqFilter(context),
        count: wholeNumber(context, 'count'),
        cursor: text(context, 'cursor'),
      });
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
      const [id] = ids(context, 'DLQ ids');
      const entry = await context.client.dlq.get(id!);
      print(context, entry, ['dlqId', 'messageId', 'url', 'responseStatus', 'responseBody'], [entry as Record<string, unknown>]);
    },
  },
  {
    name: 'dlq retry',
    summary: 'Publish DLQ entries again: by id, by filter, or all',
    example: 'mailroom dlq retry --filter-url https://app.example.com/api/orders',
    options: { ...DLQ_FILTERS, all: { type: 'boolean', description: 'every entry' } },
    run: (context) => onDlq(context, 'retry'),
  },
  {
    name: 'dlq delete',
    summary: 'Delete DLQ entries: by id, by filter, or all',
    example: 'mailroom dlq delete 1795804419065-0   |   mailroom dlq delete --all --yes',
    options: { ...DLQ_FILTERS, all: { type: 'boolean', description: 'every entry' } },
    run: (context) => onDlq(context, 'delete'),
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
      const page = await context.client.logs.list({ ...filter, count: wholeNumber(context, 'count'), cursor: text(context, 'cursor') });
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
    name: 'publish',
    summary: 'Publish a message to a URL: the body from --file, or from stdin',
    example: 'echo \'{"orderId":"o-1"}\' | mailroom publish https://app.example.com/api/orders --content-type application/json',
    options: {
      ...BODY_OPTIONS,
      delay: { type: 'string', description: 'wait before the first attempt, e.g. 10s' },
    },
    run: async (context) => {
      const [destination] = context.positionals;
      if (!destination) throw new UsageError('give the destination URL');
      const body = await bodyOf(context, () => context.readStdin());
      const retries = retriesOf(context);
      const result = await context.client.publish({
        destination,
        body,
        contentType: text(context, 'content-type') ?? 'application/json',
        ...(text(context, 'delay') ? { delay: text(context, 'delay') as never } : {}),
        ...(retries !== undefined ? { retries } : {}),
      });
      print(context, result, ['messageId'], [result as Record<string, unknown>]);
    },
  },
];
