import { afterEach, describe, expect, it } from 'vitest';
import { QUERY_PARAMETERS } from '../../src/internal-protocol';
import { messagingFixture, type StubServer } from './client-fixture';

// The client and the dev server take the names of the service's filters from one table: whatever a
// listing or bulk action of the client sends is a name its route knows, and nothing else goes out.

let stub: StubServer | undefined;
afterEach(async () => stub?.close());

const messageFilter = {
  url: 'https://a.test/x',
  urlGroup: 'g',
  queue: 'q',
  scheduleId: 's',
  label: ['a', 'b'],
  callerIp: '1.2.3.4',
  flowControlKey: 'k',
  fromDate: 1_795_000_000_000,
  toDate: 1_795_000_000_001,
};

describe('query parameters the client sends', () => {
  it('are, on every listing and bulk action, names its route takes', async () => {
    const fixture = await messagingFixture();
    stub = fixture.stub;
    const { client } = fixture;
    stub.handle((req) => {
      if (req.path === '/v2/events') return { json: { events: [] } };
      if (req.path === '/v2/dlq' && req.method === 'GET') return { json: { messages: [] } };
      if (req.path === '/v2/workflows/dlq') return { json: { messages: [] } };
      if (req.path === '/v2/workflows/events') return { json: { runs: [] } };
      if (req.path === '/v2/messages') return { json: { cancelled: 0 } };
      if (req.path === '/v2/dlq' && req.method === 'DELETE') return { json: { deleted: 0 } };
      if (req.path === '/v2/dlq/retry') return { json: { responses: [] } };
      return { status: 404, json: { error: 'unexpected' } };
    });
    await client.logs.list({ ...messageFilter, messageId: 'm', state: 'DELIVERED', count: 5, cursor: 'c' });
    await client.dlq.list({ ...messageFilter, messageId: 'm', responseStatus: [500], count: 5, cursor: 'c' });
    await client.dlq.deleteMany({ filter: { ...messageFilter, responseStatus: 500 } });
    await client.dlq.retryMany({ filter: messageFilter });
    await client.messages.cancelMany({ filter: messageFilter, count: 5 });
    await client.workflowDlq.list({
      workflowRunId: 'r',
      workflowUrl: 'https://a.test/wf',
      fromDate: 1_795_000_000_000,
      toDate: 1_795_000_000_001,
      responseStatus: 500,
      callerIP: '1.2.3.4',
      failureCallbackState: 'CALLBACK_FAIL',
      count: 5,
      label: 'l',
      cursor: 'c',
    });
    await client.workflows.logs({ workflowRunId: 'r', workflowUrl: 'https://a.test/wf', state: 'RUN_SUCCESS', count: 5, cursor: 'c' });
    const routes: Record<string, readonly string[]> = {
      'GET /v2/events': QUERY_PARAMETERS.logs,
      'GET /v2/dlq': QUERY_PARAMETERS.dlq,
      'DELETE /v2/dlq': QUERY_PARAMETERS.dlq,
      'POST /v2/dlq/retry': QUERY_PARAMETERS.dlq,
      'DELETE /v2/messages': QUERY_PARAMETERS.cancelMessages,
      'GET /v2/workflows/dlq': QUERY_PARAMETERS.workflowDlq,
      'GET /v2/workflows/events': QUERY_PARAMETERS.workflowLogs,
    };
    expect(stub.requests.map((req) => `${req.method} ${req.path}`).sort()).toEqual(Object.keys(routes).sort());
    for (const req of stub.requests) {
      const known = routes[`${req.method} ${req.path}`]!;
      const sent = Object.keys(req.query);
      expect(sent.length).toBeGreaterThan(2);
      for (const name of sent) expect([req.path, name, known.includes(name)]).toEqual([req.path, name, true]);
    }
  });

  it('refuses a misspelt filter before anything is sent', async () => {
    const fixture = await messagingFixture();
    stub = fixture.stub;
    const { client } = fixture;
    const typo = { labeel: 'x' } as never;
    await expect(async () => client.dlq.deleteMany({ filter: typo })).rejects.toThrow(/unknown filter/);
    await expect(async () => client.messages.cancelMany({ filter: typo })).rejects.toThrow(/unknown filter/);
    await expect(async () => client.logs.list(typo)).rejects.toThrow(/unknown filter/);
    await expect(async () => client.workflowDlq.list(typo)).rejects.toThrow(/unknown filter/);
    await expect(async () => client.workflows.logs(typo)).rejects.toThrow(/unknown filter/);
    expect(stub.requests).toEqual([]);
  });
});
