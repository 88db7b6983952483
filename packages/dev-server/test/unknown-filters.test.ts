import { QUERY_PARAMETERS } from '@mailroom/core/protocol';
import { describe, expect, it } from 'vitest';
import { always } from './helpers/destination';
import { raw } from './helpers/raw';
import { destination, t, useTestServer } from './helpers/test-server';

// A misspelt filter must never read as "no filter": on a bulk delete that means everything. Every
// listing and bulk action refuses a query parameter it does not know, as the service does.

useTestServer();

const ROUTES: Array<[string, string]> = [
  ['GET', '/v2/events'],
  ['DELETE', '/v2/messages'],
  ['GET', '/v2/dlq'],
  ['DELETE', '/v2/dlq'],
  ['POST', '/v2/dlq/retry'],
  ['GET', '/v2/workflows/dlq'],
  ['DELETE', '/v2/workflows/dlq'],
  ['POST', '/v2/workflows/dlq/resume'],
  ['POST', '/v2/workflows/dlq/restart'],
  ['GET', '/v2/workflows/events'],
  ['DELETE', '/v2/workflows/runs'],
];

describe('unknown filters', () => {
  it('are refused with 400 on every listing and bulk action, and nothing is touched', async () => {
    destination.script('/fail', always(500));
    await t.messaging.publish({ destination: `${destination.url}/fail`, body: 'x', retries: 0, label: 'x' });
    await t.waitForEvents('dlq', 1);
    await t.messaging.publish({ destination: `${destination.url}/later`, body: 'y', delay: '1h', label: 'x' });
    for (const [method, path] of ROUTES) {
      const answer = await raw(t, method, `${path}?labeel=x`, {});
      expect([method, path, answer.status]).toEqual([method, path, 400]);
      expect((answer.body as { error: string }).error).toContain('unknown filter "labeel"');
    }
    // The DLQ entry and the pending message are still there.
    expect((await t.messaging.dlq.list()).messages).toHaveLength(1);
    expect(t.events.filter((event) => event.type === 'accepted')).toHaveLength(2);
    expect((await t.messaging.logs.list({ state: 'CANCELED' })).events).toEqual([]);
    // The right spelling works, and no filter at all still means everything, as on the service.
    expect((await raw(t, 'DELETE', '/v2/messages?label=x', {})).body).toEqual({ cancelled: 1 });
    expect((await raw(t, 'DELETE', '/v2/dlq', {})).body).toEqual({ deleted: 1 });
  });

  it('knows every name the service documents for each route', async () => {
    for (const [method, path, names] of [
      ['GET', '/v2/events', QUERY_PARAMETERS.logs],
      ['DELETE', '/v2/messages', QUERY_PARAMETERS.cancelMessages],
      ['GET', '/v2/dlq', QUERY_PARAMETERS.dlq],
      ['GET', '/v2/workflows/events', QUERY_PARAMETERS.workflowLogs],
      ['DELETE', '/v2/workflows/runs', QUERY_PARAMETERS.workflowCancel],
      ['GET', '/v2/workflows/dlq', QUERY_PARAMETERS.workflowDlq],
    ] as const) {
      for (const name of names) {
        // A value each accepts: a time for the dates, a count, an id or a word for the rest.
        const value = ['fromDate', 'toDate', 'workflowCreatedAt'].includes(name)
          ? '1795000000000'
          : name === 'count'
            ? '5'
            : name === 'responseStatus'
              ? '500'
              : name === 'groupBy'
                ? 'workflowRunId'
                : name === 'source'
                  ? 'workflow'
                  : name === 'cursor'
                    ? ''
                    : name === 'state'
                      ? path.includes('workflows')
                        ? 'RUN_SUCCESS'
                        : 'DELIVERED'
                      : 'x';
        const answer = await raw(t, method, `${path}?${name}=${value}`, {});
        expect([path, name, answer.status]).toEqual([path, name, 200]);
      }
    }
  });
});
