import { describe, expect, it } from 'vitest';
import { allRoutes } from '../src/http/routes';
import type { Route } from '../src/http/router';
import type { Service } from '../src/service';
import { t, useTestServer } from './helpers/test-server';

// Who may call what, as a table: every route of the server against no token, the read-only token,
// the full token and the management credentials. The expected table is written out here, so a route
// that loses its auth (a public key rotation) or a new route nobody classified fails this test.

useTestServer();

type Access = 'messaging' | 'messaging, not read-only' | 'management' | 'public';

const EXPECTED: Record<string, Access> = {
  'POST /v2/topics/:name/endpoints': 'messaging',
  'DELETE /v2/topics/:name/endpoints': 'messaging',
  'GET /v2/topics': 'messaging',
  'GET /v2/topics/:name': 'messaging',
  'DELETE /v2/topics/:name': 'messaging',
  'POST /v2/enqueue/:queue/*': 'messaging',
  'POST /v2/publish/*': 'messaging',
  'POST /v2/batch': 'messaging',
  'GET /v2/messages/:id': 'messaging',
  'DELETE /v2/messages/:id': 'messaging',
  'POST /v2/messages/:id/retry': 'messaging',
  'DELETE /v2/messages': 'messaging',
  'GET /v2/bulkActions/:actionId': 'messaging',
  'GET /v2/events': 'messaging',
  'POST /v2/queues': 'messaging',
  'GET /v2/queues': 'messaging',
  'GET /v2/queues/:name': 'messaging',
  'DELETE /v2/queues/:name': 'messaging',
  'POST /v2/queues/:name/pause': 'messaging',
  'POST /v2/queues/:name/resume': 'messaging',
  'GET /v2/flowControl': 'messaging',
  'GET /v2/flowControl/:key': 'messaging',
  'POST /v2/flowControl/:key/:action': 'messaging',
  'GET /v2/globalParallelism': 'messaging',
  'POST /v2/schedules/*': 'messaging',
  'GET /v2/schedules': 'messaging',
  'GET /v2/schedules/:id': 'messaging',
  'DELETE /v2/schedules/:id': 'messaging',
  'PATCH /v2/schedules/:id/pause': 'messaging',
  'PATCH /v2/schedules/:id/resume': 'messaging',
  'GET /v2/workflows/dlq': 'messaging',
  'GET /v2/dlq': 'messaging',
  'GET /v2/dlq/:dlqId': 'messaging',
  'DELETE /v2/dlq/:dlqId': 'messaging',
  'DELETE /v2/dlq': 'messaging',
  'POST /v2/dlq/retry': 'messaging',
  'POST /v2/workflows/dlq/callback/:dlqId': 'messaging',
  'GET /v2/keys': 'messaging, not read-only',
  'POST /v2/keys/rotate': 'messaging',
  'GET /v2/workflows/runs/:runId': 'messaging',
  'DELETE /v2/workflows/runs/:runId': 'messaging',
  'DELETE /v2/workflows/runs': 'messaging',
  'POST /v2/wait/:eventId': 'messaging',
  'POST /v2/notify/:eventId': 'messaging',
  'POST /v2/notify/:runId/:eventId': 'messaging',
  'GET /v2/workflows/hooks/:userId/:runId/:eventId': 'public',
  'HEAD /v2/workflows/hooks/:userId/:runId/:eventId': 'public',
  'POST /v2/workflows/hooks/:userId/:runId/:eventId': 'public',
  'PUT /v2/workflows/hooks/:userId/:runId/:eventId': 'public',
  'PATCH /v2/workflows/hooks/:userId/:runId/:eventId': 'public',
  'DELETE /v2/workflows/hooks/:userId/:runId/:eventId': 'public',
  'GET /v2/waiters/:eventId': 'messaging',
  'GET /v2/workflows/events': 'messaging',
  'POST /v2/workflows/dlq/resume': 'messaging',
  'POST /v2/workflows/dlq/restart': 'messaging',
  'DELETE /v2/workflows/dlq': 'messaging',
  'GET /management/v2/messaging/users': 'management',
  'GET /management/v2/messaging/stats/:id': 'management',
  'POST /management/v2/search': 'management',
  'GET /management/v2/search/:id': 'management',
  'POST /dev/messages/:messageId/resend': 'messaging',
  'POST /dev/schedules/:scheduleId/fire': 'messaging',
  'GET /dev/faults': 'messaging',
  'POST /dev/faults': 'messaging',
  'DELETE /dev/faults': 'messaging',
  'DELETE /dev/faults/:id': 'messaging',
  'POST /dev/workflows/runs/:runId/time-out': 'messaging',
  'GET /dev/messages': 'messaging',
  'GET /dev/messages/:messageId': 'messaging',
  'GET /dev/messages/:messageId/fixture': 'messaging, not read-only',
  'GET /dev/workflows/runs/:runId/fixture': 'messaging, not read-only',
  'DELETE /dev/messages': 'messaging',
};

const routes = (): Route[] => allRoutes({} as Service);
const key = (route: Route): string => `${route.method} ${route.path}`;

/** A request target for a route: every parameter filled, the wildcard a URL. */
function target(route: Route): string {
  return route.path.replace(/:[A-Za-z]+/g, 'x').replace(/\*$/, 'http://127.0.0.1:9/x');
}

async function status(route: Route, authorization: string | undefined): Promise<number> {
  const response = await fetch(`${t.server.url}${target(route)}`, {
    method: route.method,
    headers: authorization === undefined ? {} : { authorization },
  });
  await response.arrayBuffer();
  return response.status;
}

describe('route access', () => {
  it('classifies every route the server answers exactly as the table says', () => {
    const access = (route: Route): Access =>
      route.auth === 'messaging' && route.method === 'GET' && route.readOnly === 'refuse' ? 'messaging, not read-only' : route.auth;
    expect(Object.fromEntries(routes().map((route) => [key(route), access(route)]))).toEqual(EXPECTED);
  });

  it('answers each route to no token, the read-only token, the full token and Basic credentials as its class allows', async () => {
    const bearer = (token: string) => `Bearer ${token}`;
    const basic = `Basic ${Buffer.from(`${t.server.managementUser}:${t.server.managementPassword}`).toString('base64')}`;
    const refused = [401, 403];
    const results: Record<string, Record<string, number>> = {};
    for (const route of routes()) {
      results[key(route)] = {
        none: await status(route, undefined),
        readOnly: await status(route, bearer(t.server.readOnlyToken)),
        full: await status(route, bearer(t.server.token)),
        basic: await status(route, basic),
      };
    }
    for (const route of routes()) {
      const got = results[key(route)]!;
      const where = key(route);
      switch (route.auth) {
        case 'public':
          for (const answer of Object.values(got)) expect([where, refused.includes(answer)]).toEqual([where, false]);
          break;
        case 'management':
          expect([where, got.none, got.readOnly, got.full]).toEqual([where, 401, 401, 401]);
          expect([where, refused.includes(got.basic!)]).toEqual([where, false]);
          break;
        default: {
          expect([where, got.none, got.basic]).toEqual([where, 401, 401]);
          expect([where, refused.includes(got.full!)]).toEqual([where, false]);
          const readOnlyMay = route.method === 'GET' && route.readOnly === 'answer';
          expect([where, readOnlyMay ? refused.includes(got.readOnly!) : got.readOnly]).toEqual([where, readOnlyMay ? false : 403]);
        }
      }
    }
  });
});
