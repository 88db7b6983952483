import { afterEach, describe, expect, it } from 'vitest';
import { NotFoundError, ValidationError, ApiError } from '../../src';
import {
  dlqPageEmpty,
  dlqPageEmptyCursor,
  dlqPageNoCursor,
  dlqPageWithCursor,
  dlqWorkflowMessageFull,
  dlqWorkflowMessageSparse,
  retriggerResponse,
  retriggerResponseStringTimestamp,
  urlGroups,
} from '../schemas/fixtures';
import { rejectionOf } from '../http/transport-fixture';
import { messagingFixture, type StubServer } from './client-fixture';

let stub: StubServer | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});
async function setup() {
  const fixture = await messagingFixture();
  stub = fixture.stub;
  return fixture;
}

describe('urlGroups', () => {
  it('lists groups with GET /v2/topics', async () => {
    const { stub, client } = await setup();
    stub.reply({ json: urlGroups });
    const groups = await client.urlGroups.list();
    expect(stub.requests[0]?.method).toBe('GET');
    expect(stub.requests[0]?.path).toBe('/v2/topics');
    expect(groups.map((g) => g.name)).toEqual(urlGroups.map((g) => g.name));
  });

  it('retries a list after a 503 (GETs are safe)', async () => {
    const { stub, client, delays } = await setup();
    stub.reply({ status: 503, json: { error: 'busy' } }, { json: urlGroups });
    await client.urlGroups.list();
    expect(stub.requests).toHaveLength(2);
    expect(delays).toHaveLength(1);
  });

  it('adds endpoints with POST and an empty 200 answer', async () => {
    const { stub, client } = await setup();
    stub.reply({ status: 200, body: '' });
    await client.urlGroups.addEndpoints('order.events_v2', [{ url: 'https://a.test/x', name: 'a' }, { url: 'http://b.test/y' }]);
    const request = stub.requests[0];
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/v2/topics/order.events_v2/endpoints');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.json()).toEqual({ endpoints: [{ url: 'https://a.test/x', name: 'a' }, { url: 'http://b.test/y' }] });
  });

  it('removes endpoints by name or url with DELETE', async () => {
    const { stub, client } = await setup();
    stub.reply({ status: 200, body: '' });
    await client.urlGroups.removeEndpoints('orders', [{ name: 'a' }, { url: 'https://b.test/y' }]);
    expect(stub.requests[0]?.method).toBe('DELETE');
    expect(stub.requests[0]?.path).toBe('/v2/topics/orders/endpoints');
    expect(stub.requests[0]?.json()).toEqual({ endpoints: [{ name: 'a' }, { url: 'https://b.test/y' }] });
  });

  it('maps an unknown group to NotFoundError', async () => {
    const { stub, client } = await setup();
    stub.reply({ status: 404, json: { error: 'topic orders not found' } });
    const error = await rejectionOf(client.urlGroups.removeEndpoints('orders', [{ name: 'a' }]));
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).serviceMessage).toBe('topic orders not found');
  });

  it.each([
    ['an empty list', () => ['g', []]],
    ['a URL without scheme', () => ['g', [{ url: 'a.test' }]]],
    ['a group name with a slash', () => ['a/b', [{ url: 'https://a.test' }]]],
    ['an endpoint name with spaces', () => ['g', [{ url: 'https://a.test', name: 'a b' }]]],
  ])('addEndpoints refuses %s', async (_name, args) => {
    const { stub, client } = await setup();
    const [name, endpoints] = args() as [string, never];
    await expect(client.urlGroups.addEndpoints(name, endpoints)).rejects.toBeInstanceOf(ValidationError);
    expect(stub.requests).toHaveLength(0);
  });

  it('removeEndpoints refuses an endpoint with both or neither of name and url', async () => {
    const { stub, client } = await setup();
    await expect(client.urlGroups.removeEndpoints('g', [{ name: 'a', url: 'https://a.test' } as never])).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(client.urlGroups.removeEndpoints('g', [{} as never])).rejects.toBeInstanceOf(ValidationError);
    expect(stub.requests).toHaveLength(0);
  });
});

describe('workflowDlq.list', () => {
  it('sends every filter of the spec as a query parameter', async () => {
    const { stub, client } = await setup();
    stub.reply({ json: dlqPageNoCursor });
    await client.workflowDlq.list({
      cursor: 'c 1',
      workflowRunId: 'wfr_1',
      workflowUrl: 'https://app.test/wf?x=1',
      fromDate: new Date('2025-10-01T00:00:00Z'),
      toDate: 1_760_441_525_001,
      responseStatus: 500,
      callerIP: '10.0.0.1',
      failureCallbackState: 'CALLBACK_FAIL',
      count: 50,
      label: 'billing',
    });
    const request = stub.requests[0];
    expect(request?.path).toBe('/v2/workflows/dlq');
    expect(request?.query).toEqual({
      cursor: 'c 1',
      workflowRunId: 'wfr_1',
      workflowUrl: 'https://app.test/wf?x=1',
      fromDate: '1759276800000',
      toDate: '1760441525001',
      responseStatus: '500',
      callerIP: '10.0.0.1',
      failureCallbackState: 'CALLBACK_FAIL',
      count: '50',
      label: 'billing',
    });
  });

  it('sends no query at all without filters', async () => {
    const { stub, client } = await setup();
    stub.reply({ json: dlqPageNoCursor });
    await client.workflowDlq.list();
    expect(stub.requests[0]?.rawQuery).toBe('');
  });

  it.each([
    ['no cursor', dlqPageNoCursor],
    ['an empty-string cursor', dlqPageEmptyCursor],
  ])('reads %s as the last page', async (_name, page) => {
    const { stub, client } = await setup();
    stub.reply({ json: page });
    const result = await client.workflowDlq.list();
    expect(result.cursor).toBeUndefined();
    expect(result.messages[0]?.dlqId).toBe(dlqWorkflowMessageSparse.dlqId);
  });

  it('parses a full entry with failureCallbackInfo', async () => {
    const { stub, client } = await setup();
    stub.reply({ json: dlqPageWithCursor });
    const page = await client.workflowDlq.list({ count: 1 });
    expect(page.cursor).toBe(dlqPageWithCursor.cursor);
    expect(page.messages[0]?.failureCallbackInfo?.state).toBe(dlqWorkflowMessageFull.failureCallbackInfo.state);
  });

  it('reads null messages as an empty page', async () => {
    const { stub, client } = await setup();
    stub.reply({ json: dlqPageEmpty });
    expect(await client.workflowDlq.list()).toEqual({ cursor: undefined, messages: [] });
  });

  it('names the broken field of a malformed entry', async () => {
    const { stub, client } = await setup();
    stub.reply({ json: { messages: [{ messageId: 'm' }] } });
    await expect(client.workflowDlq.list()).rejects.toThrow(/messages\.0\.dlqId/);
  });

  it.each([
    ['count 0', { count: 0 }, 'count'],
    ['count 101', { count: 101 }, 'count'],
    ['count 1.5', { count: 1.5 }, 'count'],
    ['fromDate in seconds', { fromDate: 1_760_441_525 }, 'fromDate'],
    ['fromDate after toDate', { fromDate: 1_760_441_525_001, toDate: 1_760_441_525_000 }, 'fromDate'],
    ['responseStatus 42', { responseStatus: 42 }, 'responseStatus'],
    ['an empty workflowRunId', { workflowRunId: '' }, 'workflowRunId'],
    ['an unknown filter', { callerIp: '1.2.3.4' }, 'callerIp'],
  ])('refuses %s', async (_name, filter, path) => {
    const { stub, client } = await setup();
    const error = await rejectionOf(client.workflowDlq.list(filter as never));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).path).toBe(path);
    expect(stub.requests).toHaveLength(0);
  });
});

describe('workflowDlq.iterate', () => {
  it('follows cursors until none is returned, keeping the filters', async () => {
    const { stub, client } = await setup();
    stub.reply(
      { json: { cursor: 'p2', messages: [{ ...dlqWorkflowMessageSparse, dlqId: 'a' }] } },
      {
        json: {
          cursor: 'p3',
          messages: [
            { ...dlqWorkflowMessageSparse, dlqId: 'b' },
            { ...dlqWorkflowMessageSparse, dlqId: 'c' },
          ],
        },
      },
      { json: { cursor: '', messages: [{ ...dlqWorkflowMessageSparse, dlqId: 'd' }] } },
    );
    const ids: string[] = [];
    for await (const entry of client.workflowDlq.iterate({ label: 'x', count: 2 })) ids.push(entry.dlqId);
    expect(ids).toEqual(['a', 'b', 'c', 'd']);
    expect(stub.requests.map((r) => r.query.cursor)).toEqual([undefined, 'p2', 'p3']);
    expect(stub.requests.every((r) => r.query.label === 'x' && r.query.count === '2')).toBe(true);
  });

  it('stops with an error when the service repeats a cursor', async () => {
    const { stub, client } = await setup();
    stub.handle(() => ({ json: { cursor: 'same', messages: [] } }));
    const drain = async () => {
      for await (const _ of client.workflowDlq.iterate()) void _;
    };
    await expect(drain()).rejects.toThrow(/twice/);
    expect(stub.requests).toHaveLength(2);
  });

  it('can be stopped early without fetching more pages', async () => {
    const { stub, client } = await setup();
    stub.reply({ json: dlqPageWithCursor });
    for await (const entry of client.workflowDlq.iterate()) {
      expect(entry.dlqId).toBeTruthy();
      break;
    }
    expect(stub.requests).toHaveLength(1);
  });
});

describe('workflowDlq.retriggerFailureCallback', () => {
  it('POSTs to the callback path and parses numeric-string timestamps', async () => {
    const { stub, client } = await setup();
    stub.reply({ json: retriggerResponse }, { json: retriggerResponseStringTimestamp });
    expect(await client.workflowDlq.retriggerFailureCallback('1760441525001-0')).toEqual(retriggerResponse);
    expect(stub.requests[0]?.method).toBe('POST');
    expect(stub.requests[0]?.path).toBe('/v2/workflows/dlq/callback/1760441525001-0');
    expect((await client.workflowDlq.retriggerFailureCallback('x/y')).workflowCreatedAt).toBe(retriggerResponse.workflowCreatedAt);
    expect(stub.requests[1]?.path).toBe('/v2/workflows/dlq/callback/x%2Fy');
  });

  it('maps 400 (not in CALLBACK_FAIL) and 404 (unknown id) and never retries', async () => {
    const { stub, client } = await setup();
    stub.reply(
      { status: 400, json: { error: 'failure callback is not in failed state' } },
      { status: 404, json: { error: 'dlq message not found' } },
    );
    await expect(client.workflowDlq.retriggerFailureCallback('a')).rejects.toBeInstanceOf(ApiError);
    await expect(client.workflowDlq.retriggerFailureCallback('b')).rejects.toBeInstanceOf(NotFoundError);
    expect(stub.requests).toHaveLength(2);
  });

  it('refuses an empty id', async () => {
    const { client } = await setup();
    expect(() => client.workflowDlq.retriggerFailureCallback('')).toThrow(ValidationError);
  });
});
