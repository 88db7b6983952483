import { afterEach, describe, expect, it } from 'vitest';
import { createMessagingClient, NotFoundError, ResponseValidationError, ValidationError, type MessagingClient } from '../../src';
import { messagingFixture, type StubServer } from './client-fixture';
import { startStubServer, type StubResponse } from '../support/stub-server';

// Every method of the groups beyond enqueue, against a real socket: the exact method, path, query,
// headers and body each one sends, and what it makes of the answer.

let stub: StubServer | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

async function setup(options: Parameters<typeof messagingFixture>[0] = {}) {
  const fixture = await messagingFixture({ headerPrefix: 'Upstash', ...options });
  stub = fixture.stub;
  return fixture;
}

const message = { messageId: 'msg_1', url: 'https://app.test/a', createdAt: 1_700_000_000_000, flowControlKey: 'k' };
const dlqEntry = { dlqId: '1700000000000-1', messageId: 'msg_1', url: 'https://app.test/a', responseStatus: 500, labels: ['x'] };
const schedule = { scheduleId: 'scd_1', cron: '*/5 * * * *', destination: 'https://app.test/a', isPaused: false, createdAt: 1 };
const queue = { name: 'emails', parallelism: 2, lag: 0, paused: false, createdAt: 1, updatedAt: 2 };
const flow = {
  flowControlKey: 'k',
  waitListSize: 0,
  parallelismMax: 2,
  parallelismCount: 0,
  rateMax: 10,
  rateCount: 1,
  ratePeriod: 60,
  ratePeriodStart: 1,
  isPaused: false,
  isPinnedParallelism: false,
  isPinnedRate: false,
};
const keys = { current: 'sig_a', next: 'sig_b' };

interface Case {
  name: string;
  call: (client: MessagingClient) => Promise<unknown>;
  reply: StubResponse;
  method: string;
  /** Path and raw query exactly as sent. */
  url: string;
  headers?: Record<string, string>;
  json?: unknown;
  result?: unknown;
}

const cases: Case[] = [
  {
    name: 'publish to a URL',
    call: (c) => c.publish({ destination: 'https://app.test/a?x=1', body: 'hi', retries: 2, label: ['a', 'b'] }),
    reply: { json: { messageId: 'msg_1', url: 'https://app.test/a?x=1' } },
    method: 'POST',
    url: '/v2/publish/https://app.test/a?x=1',
    headers: { 'upstash-retries': '2', 'upstash-label': 'a,b' },
    result: { messageId: 'msg_1', url: 'https://app.test/a?x=1' },
  },
  {
    name: 'publishJSON to a URL group with flow control and redaction',
    call: (c) =>
      c.publishJSON({
        destination: 'orders',
        body: { a: 1 },
        flowControl: { key: 'tenant-1', parallelism: 2, rate: 10, period: '1m' },
        redact: { body: true, headers: ['Authorization'] },
      }),
    reply: { json: [{ messageId: 'msg_1', url: 'https://a.test' }] },
    method: 'POST',
    url: '/v2/publish/orders',
    headers: {
      'content-type': 'application/json',
      'upstash-flow-control-key': 'tenant-1',
      'upstash-flow-control-value': 'parallelism=2, rate=10, period=1m',
      'upstash-redact-fields': 'body,header[Authorization]',
    },
    result: [{ messageId: 'msg_1', url: 'https://a.test' }],
  },
  {
    name: 'batch with a queue item and a URL-group item',
    call: (c) =>
      c.batch([
        { destination: 'https://app.test/a', body: 'x', delay: '10s' },
        { destination: 'orders', queue: 'q1', body: 'y' },
      ]),
    reply: { json: [{ messageId: 'msg_1' }, [{ messageId: 'msg_2', url: 'https://a.test' }]] },
    method: 'POST',
    url: '/v2/batch',
    json: [
      { destination: 'https://app.test/a', headers: { 'Upstash-Delay': '10s' }, body: 'x' },
      { destination: 'orders', queue: 'q1', headers: {}, body: 'y' },
    ],
    result: [{ messageId: 'msg_1' }, [{ messageId: 'msg_2', url: 'https://a.test' }]],
  },
  {
    name: 'batchJSON',
    call: (c) => c.batchJSON([{ destination: 'https://app.test/a', body: { n: 1 } }]),
    reply: { json: [{ messageId: 'msg_1' }] },
    method: 'POST',
    url: '/v2/batch',
    json: [{ destination: 'https://app.test/a', headers: { 'Content-Type': 'application/json' }, body: '{"n":1}' }],
  },
  {
    name: 'schedules.create with a chosen id, a queue and CRON_TZ',
    call: (c) =>
      c.schedules.create({
        destination: 'https://app.test/a',
        cron: 'CRON_TZ=Europe/Paris 0 9 * * 1-5',
        body: 'tick',
        scheduleId: 'daily',
        queue: 'q1',
        retries: 1,
      }),
    reply: { json: { scheduleId: 'daily' } },
    method: 'POST',
    url: '/v2/schedules/https://app.test/a',
    headers: {
      'upstash-cron': 'CRON_TZ=Europe/Paris 0 9 * * 1-5',
      'upstash-schedule-id': 'daily',
      'upstash-queue-name': 'q1',
      'upstash-retries': '1',
    },
    result: { scheduleId: 'daily' },
  },
  {
    name: 'schedules.get',
    call: (c) => c.schedules.get('scd_1'),
    reply: { json: schedule },
    method: 'GET',
    url: '/v2/schedules/scd_1',
    result: schedule,
  },
  {
    name: 'schedules.list',
    call: (c) => c.schedules.list(),
    reply: { json: [schedule] },
    method: 'GET',
    url: '/v2/schedules',
    result: [schedule],
  },
  { name: 'schedules.delete', call: (c) => c.schedules.delete('scd_1'), reply: { body: '' }, method: 'DELETE', url: '/v2/schedules/scd_1' },
  {
    name: 'schedules.pause',
    call: (c) => c.schedules.pause('scd_1'),
    reply: { body: '' },
    method: 'PATCH',
    url: '/v2/schedules/scd_1/pause',
  },
  {
    name: 'schedules.resume',
    call: (c) => c.schedules.resume('scd_1'),
    reply: { body: '' },
    method: 'PATCH',
    url: '/v2/schedules/scd_1/resume',
  },
  {
    name: 'queues.upsert',
    call: (c) => c.queues.upsert({ name: 'emails', parallelism: 2 }),
    reply: { body: '' },
    method: 'POST',
    url: '/v2/queues',
    json: { queueName: 'emails', parallelism: 2, paused: false },
  },
  {
    name: 'queues.get',
    call: (c) => c.queues.get('emails'),
    reply: { json: queue },
    method: 'GET',
    url: '/v2/queues/emails',
    result: queue,
  },
  { name: 'queues.list', call: (c) => c.queues.list(), reply: { json: [queue] }, method: 'GET', url: '/v2/queues', result: [queue] },
  { name: 'queues.delete', call: (c) => c.queues.delete('emails'), reply: { body: '' }, method: 'DELETE', url: '/v2/queues/emails' },
  { name: 'queues.pause', call: (c) => c.queues.pause('emails'), reply: { body: '' }, method: 'POST', url: '/v2/queues/emails/pause' },
  { name: 'queues.resume', call: (c) => c.queues.resume('emails'), reply: { body: '' }, method: 'POST', url: '/v2/queues/emails/resume' },
  {
    name: 'messages.get',
    call: (c) => c.messages.get('msg_1'),
    reply: { json: message },
    method: 'GET',
    url: '/v2/messages/msg_1',
    result: message,
  },
  {
    name: 'messages.cancelInBackground by filter',
    call: (c) => c.messages.cancelInBackground({ filter: { queue: 'q' } }),
    reply: { status: 202, json: { actionId: 'act_1' } },
    method: 'DELETE',
    url: '/v2/messages?queueName=q&async=true',
    result: { actionId: 'act_1' },
  },
  {
    name: 'bulkActions.get',
    call: (c) => c.bulkActions.get('act_1'),
    reply: { json: { actionId: 'act_1', kind: 'cancel', state: 'FINISHED', total: 3, processed: 3, createdAt: 1, completedAt: 2 } },
    method: 'GET',
    url: '/v2/bulkActions/act_1',
    result: { actionId: 'act_1', kind: 'cancel', state: 'FINISHED', total: 3, processed: 3, createdAt: 1, completedAt: 2 },
  },
  {
    name: 'messages.runNow',
    call: (c) => c.messages.runNow('msg_1'),
    reply: { body: '' },
    method: 'POST',
    url: '/v2/messages/msg_1/retry',
  },
  {
    name: 'messages.cancel',
    call: (c) => c.messages.cancel('msg_1'),
    reply: { json: { cancelled: 1 } },
    method: 'DELETE',
    url: '/v2/messages/msg_1',
    result: { cancelled: 1 },
  },
  {
    name: 'messages.cancel with an empty 202',
    call: (c) => c.messages.cancel('msg_1'),
    reply: { status: 202, body: '' },
    method: 'DELETE',
    url: '/v2/messages/msg_1',
    result: { cancelled: 1 },
  },
  {
    name: 'messages.cancelMany by ids',
    call: (c) => c.messages.cancelMany({ messageIds: ['msg_1', 'msg_2'] }),
    reply: { json: { cancelled: 2 } },
    method: 'DELETE',
    url: '/v2/messages?messageIds=msg_1&messageIds=msg_2',
    result: { cancelled: 2 },
  },
  {
    name: 'messages.cancelMany by filter',
    call: (c) => c.messages.cancelMany({ filter: { queue: 'emails', urlGroup: 'orders', fromDate: 1_700_000_000_000 }, count: 50 }),
    reply: { json: { cancelled: 3 } },
    method: 'DELETE',
    url: '/v2/messages?topicName=orders&queueName=emails&fromDate=1700000000000&count=50',
  },
  {
    name: 'messages.cancelMany all',
    call: (c) => c.messages.cancelMany({ all: true }),
    reply: { json: { cancelled: 7 } },
    method: 'DELETE',
    url: '/v2/messages',
    result: { cancelled: 7 },
  },
  {
    name: 'dlq.list with filters',
    call: (c) => c.dlq.list({ url: 'https://app.test/a', responseStatus: [500, 502], label: 'x', count: 10 }),
    reply: { json: { cursor: 'c2', messages: [dlqEntry] } },
    method: 'GET',
    url: '/v2/dlq?url=https%3A%2F%2Fapp.test%2Fa&label=x&responseStatus=500&responseStatus=502&count=10',
    result: { cursor: 'c2', messages: [dlqEntry] },
  },
  {
    name: 'dlq.get',
    call: (c) => c.dlq.get('1700000000000-1'),
    reply: { json: dlqEntry },
    method: 'GET',
    url: '/v2/dlq/1700000000000-1',
    result: dlqEntry,
  },
  {
    name: 'dlq.delete',
    call: (c) => c.dlq.delete('1700000000000-1'),
    reply: { body: '' },
    method: 'DELETE',
    url: '/v2/dlq/1700000000000-1',
  },
  {
    name: 'dlq.deleteMany all',
    call: (c) => c.dlq.deleteMany({ all: true, count: 100 }),
    reply: { json: { deleted: 100, cursor: 'c' } },
    method: 'DELETE',
    url: '/v2/dlq?count=100',
    result: { deleted: 100, cursor: 'c' },
  },
  {
    name: 'dlq.retry',
    call: (c) => c.dlq.retry('d1'),
    reply: { json: { responses: [{ messageId: 'msg_9' }] } },
    method: 'POST',
    url: '/v2/dlq/retry?dlqIds=d1',
    result: { messageId: 'msg_9' },
  },
  {
    name: 'dlq.retryMany by filter',
    call: (c) => c.dlq.retryMany({ filter: { queue: 'emails' } }),
    reply: { json: { responses: [{ messageId: 'msg_9' }], cursor: '' } },
    method: 'POST',
    url: '/v2/dlq/retry?queueName=emails',
    result: { responses: [{ messageId: 'msg_9' }], cursor: undefined },
  },
  {
    name: 'logs.list',
    call: (c) => c.logs.list({ state: 'DELIVERED', messageId: 'msg_1', scheduleId: 'scd_1', toDate: new Date(1_700_000_000_000) }),
    reply: { json: { cursor: '', events: [{ time: 1, state: 'DELIVERED', messageId: 'msg_1', url: 'https://app.test/a' }] } },
    method: 'GET',
    url: '/v2/events?scheduleId=scd_1&messageId=msg_1&toDate=1700000000000&state=DELIVERED',
    result: { cursor: undefined, events: [{ time: 1, state: 'DELIVERED', messageId: 'msg_1', url: 'https://app.test/a' }] },
  },
  {
    name: 'urlGroups.get',
    call: (c) => c.urlGroups.get('orders'),
    reply: { json: { name: 'orders', createdAt: 1, updatedAt: 1, endpoints: null } },
    method: 'GET',
    url: '/v2/topics/orders',
    result: { name: 'orders', createdAt: 1, updatedAt: 1, endpoints: [] },
  },
  { name: 'urlGroups.delete', call: (c) => c.urlGroups.delete('orders'), reply: { body: '' }, method: 'DELETE', url: '/v2/topics/orders' },
  {
    name: 'flowControl.get',
    call: (c) => c.flowControl.get('k'),
    reply: { json: flow },
    method: 'GET',
    url: '/v2/flowControl/k',
    result: flow,
  },
  {
    name: 'flowControl.list',
    call: (c) => c.flowControl.list(),
    reply: { json: [flow] },
    method: 'GET',
    url: '/v2/flowControl',
    result: [flow],
  },
  { name: 'flowControl.pause', call: (c) => c.flowControl.pause('k'), reply: { body: '' }, method: 'POST', url: '/v2/flowControl/k/pause' },
  {
    name: 'flowControl.resume',
    call: (c) => c.flowControl.resume('k'),
    reply: { body: '' },
    method: 'POST',
    url: '/v2/flowControl/k/resume',
  },
  {
    name: 'flowControl.pin',
    call: (c) => c.flowControl.pin('k', { parallelism: 3, rate: 5, period: 60 }),
    reply: { body: '' },
    method: 'POST',
    url: '/v2/flowControl/k/pin?parallelism=3&rate=5&period=60',
  },
  {
    name: 'flowControl.unpin',
    call: (c) => c.flowControl.unpin('k', { rate: true }),
    reply: { body: '' },
    method: 'POST',
    url: '/v2/flowControl/k/unpin?rate=true',
  },
  {
    name: 'flowControl.resetRate',
    call: (c) => c.flowControl.resetRate('k'),
    reply: { body: '' },
    method: 'POST',
    url: '/v2/flowControl/k/resetRate',
  },
  {
    name: 'flowControl.globalParallelism',
    call: (c) => c.flowControl.globalParallelism(),
    reply: { json: {} },
    method: 'GET',
    url: '/v2/globalParallelism',
    result: { parallelismMax: 0, parallelismCount: 0 },
  },
  { name: 'signingKeys.get', call: (c) => c.signingKeys.get(), reply: { json: keys }, method: 'GET', url: '/v2/keys', result: keys },
  {
    name: 'signingKeys.rotate',
    call: (c) => c.signingKeys.rotate(),
    reply: { json: keys },
    method: 'POST',
    url: '/v2/keys/rotate',
    result: keys,
  },
];

describe('the whole interface on the wire', () => {
  it.each(cases)('$name', async ({ call, reply, method, url, headers, json, result }) => {
    const { stub, client } = await setup();
    stub.reply(reply);
    const answer = await call(client);
    expect(stub.requests).toHaveLength(1);
    const request = stub.requests[0]!;
    expect(request.method).toBe(method);
    expect(request.url).toBe(url);
    expect(request.headers.authorization).toBe('Bearer test-token');
    if (headers) expect(request.headers).toMatchObject(headers);
    if (json !== undefined) expect(request.json()).toEqual(json);
    if (result !== undefined) expect(answer).toEqual(result);
  });
});

describe('paging', () => {
  it('iterates the DLQ and the logs until the cursor ends, passing each cursor back', async () => {
    const { stub, client } = await setup();
    stub.reply({ json: { cursor: 'p2', messages: [dlqEntry] } }, { json: { messages: [{ ...dlqEntry, dlqId: 'd2' }] } });
    const ids: string[] = [];
    for await (const entry of client.dlq.iterate({ queue: 'emails' })) ids.push(entry.dlqId);
    expect(ids).toEqual(['1700000000000-1', 'd2']);
    expect(stub.requests.map((r) => r.url)).toEqual(['/v2/dlq?queueName=emails', '/v2/dlq?queueName=emails&cursor=p2']);

    stub.reply({ json: { cursor: 5, events: [{ time: 1, state: 'CREATED', messageId: 'm' }] } }, { json: { events: [] } });
    const states: string[] = [];
    for await (const event of client.logs.iterate()) states.push(event.state);
    expect(states).toEqual(['CREATED']);
    expect(stub.requests.at(-1)?.url).toBe('/v2/events?cursor=5');
  });

  it('stops with an error when the service repeats a cursor', async () => {
    const { stub, client } = await setup();
    stub.handle(() => ({ json: { cursor: 'same', events: [] } }));
    const walk = async () => {
      for await (const _ of client.logs.iterate()) void _;
    };
    await expect(walk()).rejects.toThrow(/returned cursor "same" twice/);
  });
});

describe('answers', () => {
  it('maps 404 to NotFoundError', async () => {
    const { stub, client } = await setup();
    stub.reply({ status: 404, json: { error: 'message msg_x not found' } });
    await expect(client.messages.get('msg_x')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('refuses a batch answer with the wrong number of results', async () => {
    const { stub, client } = await setup();
    stub.reply({ json: [{ messageId: 'msg_1' }] });
    await expect(
      client.batch([
        { destination: 'https://a.test', body: '' },
        { destination: 'https://b.test', body: '' },
      ]),
    ).rejects.toBeInstanceOf(ResponseValidationError);
  });

  it('refuses a schedule without its id', async () => {
    const { stub, client } = await setup();
    stub.reply({ json: { id: 'x' } });
    await expect(client.schedules.create({ destination: 'https://a.test', cron: '* * * * *' })).rejects.toBeInstanceOf(
      ResponseValidationError,
    );
  });
});

describe('input checks (nothing is sent)', () => {
  const bad: Array<[string, (c: MessagingClient) => Promise<unknown>, RegExp]> = [
    [
      'publish with a queue',
      (c) => c.publish({ destination: 'https://a.test', queue: 'q' } as never),
      /^queue: publish sends without a queue/,
    ],
    [
      'flow control without limits',
      (c) => c.publish({ destination: 'https://a.test', flowControl: { key: 'k' } }),
      /flowControl: give at least one of parallelism and rate/,
    ],
    [
      'flow control with a bad key',
      (c) => c.publish({ destination: 'https://a.test', flowControl: { key: 'a b', rate: 1 } }),
      /flowControl.key/,
    ],
    [
      'a period without a rate',
      (c) => c.publish({ destination: 'https://a.test', flowControl: { key: 'k', parallelism: 1, period: '1m' } }),
      /period is the period of rate/,
    ],
    ['a label with a comma', (c) => c.publish({ destination: 'https://a.test', label: 'a,b' }), /label: a label cannot contain ","/],
    ['an empty label list', (c) => c.publish({ destination: 'https://a.test', label: [] }), /label: expected a label or a non-empty array/],
    ['redact nothing', (c) => c.publish({ destination: 'https://a.test', redact: {} }), /redact: nothing to redact/],
    ['an empty batch', (c) => c.batch([]), /items: expected a non-empty array/],
    [
      'a batch item with bad retries',
      (c) =>
        c.batch([
          { destination: 'https://a.test', body: '' },
          { destination: 'https://a.test', retries: -1 },
        ]),
      /^items\.1\.retries:/,
    ],
    [
      'a batch item with a binary body',
      (c) => c.batch([{ destination: 'https://a.test', body: new Uint8Array(1) as never }]),
      /items\.0\.body: a batch body must be a string/,
    ],
    [
      'a cron with four fields',
      (c) => c.schedules.create({ destination: 'https://a.test', cron: '* * * *' }),
      /cron: expected five fields/,
    ],
    [
      'an unknown CRON_TZ',
      (c) => c.schedules.create({ destination: 'https://a.test', cron: 'CRON_TZ=Mars/Olympus * * * * *' }),
      /unknown time zone "Mars\/Olympus"/,
    ],
    [
      'a cron minute out of range',
      (c) => c.schedules.create({ destination: 'https://a.test', cron: '61 * * * *' }),
      /cron: minute 61 is out of range .*use 0-59/,
    ],
    [
      'a cron day of month out of range, named as written',
      (c) => c.schedules.create({ destination: 'https://a.test', cron: '0 0 32 * *' }),
      /cron: day of month 32 is out of range .*use 1-31/,
    ],
    [
      'a cron month out of range, named as written',
      (c) => c.schedules.create({ destination: 'https://a.test', cron: '0 0 * 13 *' }),
      /cron: month 13 is out of range .*use 1-12/,
    ],
    [
      'a cron month 0 in a range',
      (c) => c.schedules.create({ destination: 'https://a.test', cron: '0 0 1 0-3 *' }),
      /cron: month 0 is out of range/,
    ],
    ['a cron step of 0', (c) => c.schedules.create({ destination: 'https://a.test', cron: '*/0 * * * *' }), /step "0" of the minute/],
    [
      'a cron that never fires (February 30th)',
      (c) => c.schedules.create({ destination: 'https://a.test', cron: '0 0 30 2 *' }),
      /never fires/,
    ],
    ['a retry delay dividing by zero', (c) => c.publish({ destination: 'https://a.test', retryDelay: '1/0' }), /retried=0/],
    ['an infinite retry delay', (c) => c.publish({ destination: 'https://a.test', retryDelay: 'pow(10, 400)' }), /Infinity/],
    ['a negative retry delay', (c) => c.publish({ destination: 'https://a.test', retryDelay: '-1000' }), /-1000 for the first retry/],
    [
      'a schedule with deduplication',
      (c) => c.schedules.create({ destination: 'https://a.test', cron: '* * * * *', deduplicationId: 'x' } as never),
      /deduplicationId: does not apply to a schedule/,
    ],
    [
      'a schedule to an API',
      (c) => c.schedules.create({ destination: 'api/llm', cron: '* * * * *' }),
      /a schedule sends to a URL or a URL group/,
    ],
    ['queue parallelism 0', (c) => c.queues.upsert({ name: 'q', parallelism: 0 }), /parallelism: expected a whole number >= 1/],
    ['an unknown queue option', (c) => c.queues.upsert({ name: 'q', parallel: 2 } as never), /parallel: unknown option/],
    ['cancel with an empty filter', (c) => c.messages.cancelMany({ filter: {} }), /an empty filter would cancel everything/],
    ['cancel with two modes', (c) => c.messages.cancelMany({ all: true, messageIds: ['a'] } as never), /exactly one of/],
    ['cancel with an empty id list', (c) => c.messages.cancelMany({ messageIds: [] }), /messageIds: expected a non-empty array/],
    ['an unknown log state', (c) => c.logs.list({ state: 'DONE' as never }), /state: expected one of CREATED/],
    ['a log filter typo', (c) => c.logs.list({ queueName: 'q' } as never), /queueName: unknown filter/],
    ['seconds as fromDate', (c) => c.dlq.list({ fromDate: 1_700_000_000 }), /looks like Unix seconds/],
    ['a bad status filter', (c) => c.dlq.list({ responseStatus: 99 }), /responseStatus: expected an HTTP status/],
    ['an empty dlqId', (c) => c.dlq.get(''), /dlqId: expected the dlqId/],
    ['run now without a message id', (c) => c.messages.runNow(''), /messageId: expected the message id/],
    ['retry with all: false', (c) => c.dlq.retryMany({ all: false as never }), /all: expected true/],
    ['pin without limits', (c) => c.flowControl.pin('k', {}), /give at least one of parallelism, rate and period to pin/],
    ['unpin a period', (c) => c.flowControl.unpin('k', { period: true } as never), /to unpin, pass parallelism: true/],
  ];
  it.each(bad)('refuses %s', async (_name, call, message) => {
    const { stub, client } = await setup();
    const error = await Promise.resolve()
      .then(() => call(client))
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toMatch(message);
    expect(stub.requests).toHaveLength(0);
  });
});

describe('regions', () => {
  it('takes the region variables over the default ones, and code over both', async () => {
    const fixture = { stub: await startStubServer() };
    stub = fixture.stub;
    const env = {
      MAILROOM_URL: 'http://127.0.0.1:1',
      MAILROOM_TOKEN: 'default-token',
      MAILROOM_REGION: 'eu-central-1',
      MAILROOM_EU_CENTRAL_1_URL: fixture.stub.url,
      MAILROOM_EU_CENTRAL_1_TOKEN: 'eu-token',
    };
    const client = createMessagingClient({ env });
    expect(client.region).toBe('EU_CENTRAL_1');
    fixture.stub.reply({ json: keys });
    await client.signingKeys.get();
    expect(fixture.stub.requests[0]?.headers.authorization).toBe('Bearer eu-token');
    expect(createMessagingClient({ env, token: 'code-token' }).region).toBe('EU_CENTRAL_1');
    expect(() => createMessagingClient({ env, region: 'eu central' })).toThrow(/Invalid region "eu central"/);
  });
});
