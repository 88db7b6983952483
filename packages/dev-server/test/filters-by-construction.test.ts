import { QUERY_PARAMETERS } from '@mailroom/core/internal-protocol';
import { describe, expect, it } from 'vitest';
import { QUERY_FORMS } from '../src/http/filters';
import { allRoutes } from '../src/http/routes';
import type { Route } from '../src/http/router';
import type { Service } from '../src/service';
import { always } from './helpers/destination';
import { raw } from './helpers/raw';
import { destination, t, useTestServer } from './helpers/test-server';

// A filter acts on what it names, and on nothing else: generated from the route table, so a route
// (or a filter name) added without going through the filter grammar fails here. Every route that
// takes query names refuses an unknown name, an empty or blank value, and a value of the wrong form,
// in its query and (a bulk action) in a JSON body, touching nothing. Every destructive route, given
// each accepted filter with a value that names nothing, changes nothing (an ignored filter would act
// on everything), and given the ids or label of one thing, acts on that thing alone.

useTestServer();

const ROUTES = allRoutes({} as Service);
const named = (route: Route): readonly string[] => (route.query === 'not-read' ? [] : route.query);
const FILTERED = ROUTES.filter((route) => named(route).length > 0);
const DESTRUCTIVE = FILTERED.filter((route) => route.method !== 'GET' && route.body !== 'payload');
const where = (route: Route) => `${route.method} ${route.path}`;
const target = (route: Route) => route.path.replace(/:[A-Za-z]+/g, 'x');

/** A value of the wrong form for each kind of filter. */
function wrongValue(name: string): string | undefined {
  const form = QUERY_FORMS[name];
  if (form === 'milliseconds') return 'yesterday';
  if (form === 'count') return '0';
  if (form === 'status') return '99x';
  if (form === 'boolean') return 'yes';
  if (form === 'word') return 'a\u0001b';
  if (typeof form === 'object') return 'bogus';
  return undefined;
}

const send = (route: Route, query: string, body?: unknown) => {
  const basic = `Basic ${Buffer.from(`${t.server.managementUser}:${t.server.managementPassword}`).toString('base64')}`;
  return raw(t, route.method, `${target(route)}${query}`, {
    ...(route.auth === 'management' ? { token: null } : {}),
    headers: {
      ...(route.auth === 'management' ? { authorization: basic } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
};

describe('filters by construction', () => {
  it('knows the form of every query name any route takes, and every name the service documents', () => {
    const names = new Set(ROUTES.flatMap(named));
    for (const list of Object.values(QUERY_PARAMETERS)) for (const name of list) names.add(name);
    expect([...names].filter((name) => QUERY_FORMS[name] === undefined)).toEqual([]);
  });

  it('classifies every destructive route it generates cases for', () => {
    // The list below is what the generated cases cover; a new bulk route joins it by being in the table.
    expect(DESTRUCTIVE.map(where).sort()).toEqual(
      [
        'DELETE /dev/messages',
        'DELETE /v2/dlq',
        'DELETE /v2/messages',
        'DELETE /v2/workflows/dlq',
        'DELETE /v2/workflows/runs',
        'POST /v2/dlq/retry',
        'POST /v2/workflows/dlq/restart',
        'POST /v2/workflows/dlq/resume',
      ].sort(),
    );
  });

  it('refuses unknown names, empty and blank values and wrong forms on every route, in the query and in a body, naming the filter', async () => {
    const world = await seed();
    const before = await observe(world);
    for (const route of FILTERED) {
      const name = named(route).find((each) => QUERY_FORMS[each] !== 'cursor')!;
      const cases: Array<[string, string, unknown]> = [
        ['unknown name', '?labeel=x', undefined],
        ['empty value', `?${name}=`, undefined],
        ['blank value', `?${name}=%20%20`, undefined],
      ];
      if (named(route).includes('workflowUrlExactMatch'))
        cases.push(['a modifier alone of workflowUrl', '?workflowUrlExactMatch=true', undefined]);
      for (const each of named(route)) {
        const wrong = wrongValue(each);
        if (wrong !== undefined) cases.push([`wrong form of ${each}`, `?${each}=${encodeURIComponent(wrong)}`, undefined]);
      }
      if (DESTRUCTIVE.includes(route)) {
        cases.push(['unknown name in the body', '', { labeel: 'x' }]);
        cases.push(['empty list in the body', '', { [name]: [] }]);
        cases.push(['blank value in the body', '', { [name]: ' ' }]);
        cases.push(['a body that is not an object', '', ['x']]);
        cases.push(['a value that is an object', '', { [name]: { x: 1 } }]);
      }
      for (const [what, query, body] of cases) {
        const answer = await send(route, query, body);
        expect([where(route), what, answer.status]).toEqual([where(route), what, 400]);
        const error = (answer.body as { error: string }).error;
        const mentioned = what.startsWith('unknown') ? 'labeel' : what.startsWith('a body') ? 'body' : (what.split(' of ')[1] ?? name);
        expect([where(route), what, error.includes(mentioned)]).toEqual([where(route), what, true]);
      }
    }
    expect(await observe(world)).toEqual(before);
  });

  it('acts on nothing when an accepted filter names nothing, from the query and from a body', async () => {
    for (const route of DESTRUCTIVE) {
      for (const name of named(route)) {
        const value = namesNothing(name);
        if (value === undefined) continue;
        for (const form of ['query', 'body'] as const) {
          const world = await seed();
          const before = await observe(world);
          const answer =
            form === 'query' ? await send(route, `?${name}=${encodeURIComponent(value)}`) : await send(route, '', { [name]: value });
          expect([where(route), name, form, answer.status < 300]).toEqual([where(route), name, form, true]);
          await settle(answer);
          expect([where(route), name, form, await observe(world)]).toEqual([where(route), name, form, before]);
          await reset();
        }
      }
    }
  }, 120_000);

  it('acts on exactly the thing its ids or label name, from the query and from a body', async () => {
    const cases: Array<[string, (world: World) => Record<string, string | string[]>, (world: World) => Partial<Observed>]> = [
      ['DELETE /v2/messages', (w) => ({ messageIds: [w.pendingA] }), (w) => ({ pending: [w.pendingA] })],
      ['DELETE /v2/messages', () => ({ label: 'la' }), (w) => ({ pending: [w.pendingA] })],
      ['DELETE /dev/messages', () => ({ label: 'la' }), (w) => ({ pending: [w.pendingA] })],
      ['DELETE /v2/dlq', (w) => ({ dlqIds: [w.dlqA] }), (w) => ({ dlq: [w.dlqA] })],
      ['DELETE /v2/dlq', () => ({ label: 'la' }), (w) => ({ dlq: [w.dlqA] })],
      ['DELETE /v2/dlq', () => ({ source: 'workflow' }), (w) => ({ dlq: [w.dlqRun] })],
      ['DELETE /v2/dlq', () => ({ source: 'message' }), (w) => ({ dlq: [w.dlqA] })],
      ['POST /v2/dlq/retry', () => ({ source: 'message' }), (w) => ({ dlq: [w.dlqA] })],
      ['POST /v2/dlq/retry', () => ({ source: 'workflow' }), (w) => ({ dlq: [w.dlqRun] })],
      ['DELETE /v2/workflows/dlq', (w) => ({ dlqIds: [w.dlqRun] }), (w) => ({ dlq: [w.dlqRun] })],
      ['DELETE /v2/workflows/runs', (w) => ({ workflowRunIds: [w.runA] }), (w) => ({ runs: [w.runA], pending: [w.triggerA] })],
      ['DELETE /v2/workflows/runs', (w) => ({ workflowUrl: `${w.url}/wa` }), (w) => ({ runs: [w.runA], pending: [w.triggerA] })],
    ];
    for (const [route, filter, changed] of cases) {
      const [method, path] = route.split(' ') as [string, string];
      for (const form of ['query', 'body'] as const) {
        const world = await seed();
        const before = await observe(world);
        const query = new URLSearchParams();
        for (const [name, value] of Object.entries(filter(world))) for (const each of [value].flat()) query.append(name, each);
        const answer =
          form === 'query'
            ? await raw(t, method, `${path}?${query}`)
            : await raw(t, method, path, { body: JSON.stringify(filter(world)), headers: { 'content-type': 'application/json' } });
        expect([route, form, answer.status < 300]).toEqual([route, form, true]);
        await settle(answer);
        const after = await observe(world);
        const gone = changedBetween(before, after);
        expect([route, form, gone]).toEqual([route, form, { pending: [], dlq: [], runs: [], ...changed(world) }]);
        await reset();
      }
    }
  }, 120_000);
});

/** A value of the right form that names nothing the seed made, or `undefined` for names that are not filters. */
function namesNothing(name: string): string | undefined {
  const form = QUERY_FORMS[name];
  if (name === 'fromDate' || name === 'from') return String(Date.now() + 86_400_000);
  if (name === 'toDate' || name === 'to' || name === 'workflowCreatedAt') return '1';
  if (form === 'status') return '418';
  if (name === 'failureCallbackState' || name === 'failureFunctionState') return 'CALLBACK_SUCCESS';
  if (form === 'word') return name === 'url' || name === 'workflowUrl' ? 'http://nowhere.test/x' : 'nothing-by-that-name';
  return undefined;
}

interface World {
  url: string;
  pendingA: string;
  pendingB: string;
  runA: string;
  runB: string;
  triggerA: string;
  triggerB: string;
  dlqA: string;
  dlqRun: string;
}

interface Observed {
  pending: string[];
  dlq: string[];
  runs: string[];
}

let seeded = 0;

/** Two pending messages, two running runs (their triggers pending), a plain DLQ entry and a failed run's. */
async function seed(): Promise<World> {
  // 150 h is nine minutes on the test server's clock: pending for the whole test, however busy the machine.
  destination.script('/fail', always(500));
  const url = destination.url;
  const pendingA = (await t.messaging.publish({ destination: `${url}/a`, body: 'a', delay: '150h', label: 'la' })).messageId;
  const pendingB = (await t.messaging.publish({ destination: `${url}/b`, body: 'b', delay: '150h', label: 'lb' })).messageId;
  const trigger = async (runId: string, path: string) => {
    const answer = await raw(t, 'POST', `/v2/publish/${url}/${path}`, {
      body: '{}',
      headers: {
        'Service-Workflow-RunId': runId,
        'Service-Workflow-Url': `${url}/${path}`,
        'Service-Workflow-Init': 'true',
        'Service-Delay': '150h',
      },
    });
    return (answer.body as { messageId: string }).messageId;
  };
  // Fresh run ids each time: a run id, once used, names that run for good.
  seeded += 1;
  const runA = `wfr_a${seeded}`;
  const runB = `wfr_b${seeded}`;
  const triggerA = await trigger(runA, 'wa');
  const triggerB = await trigger(runB, 'wb');
  const failed = (await t.messaging.publish({ destination: `${url}/fail`, body: 'x', retries: 0, label: 'la' })).messageId;
  const failedRun = (
    await t.messaging.publish({
      destination: `${url}/fail`,
      body: 'y',
      retries: 0,
      label: 'lrun',
      workflow: { runId: `wfr_failed${seeded}`, url: `${url}/wf`, createdAt: 1_700_000_000_000 },
    })
  ).messageId;
  const dlq = await t.waitForEvents('dlq', 2, (event) => event.messageId === failed || event.messageId === failedRun);
  const dlqOf = (id: string) => dlq.find((event) => event.messageId === id)!.dlqId;
  return { url, pendingA, pendingB, runA, runB, triggerA, triggerB, dlqA: dlqOf(failed), dlqRun: dlqOf(failedRun) };
}

/** What the seed made that is still there. */
async function observe(world: World): Promise<Observed> {
  const pending: string[] = [];
  for (const id of [world.pendingA, world.pendingB, world.triggerA, world.triggerB]) {
    if ((await raw(t, 'GET', `/v2/messages/${id}`)).status === 200) pending.push(id);
  }
  const dlq = ((await raw(t, 'GET', '/v2/dlq')).body as { messages: Array<{ dlqId: string }> }).messages.map((entry) => entry.dlqId);
  const runs: string[] = [];
  for (const runId of [world.runA, world.runB]) {
    const logs = (await raw(t, 'GET', `/v2/workflows/events?workflowRunId=${runId}`)).body as { runs: Array<{ workflowState: string }> };
    if (logs.runs[0]?.workflowState === 'RUN_STARTED') runs.push(runId);
  }
  return { pending, dlq: dlq.filter((id) => [world.dlqA, world.dlqRun].includes(id)).sort(), runs };
}

function changedBetween(before: Observed, after: Observed): Observed {
  const gone = (a: string[], b: string[]) => a.filter((id) => !b.includes(id));
  return { pending: gone(before.pending, after.pending), dlq: gone(before.dlq, after.dlq), runs: gone(before.runs, after.runs) };
}

/** Waits for a bulk action the answer started in the background to finish. */
async function settle(answer: { body: unknown }): Promise<void> {
  const actionId = (answer.body as { actionId?: string } | undefined)?.actionId;
  if (actionId === undefined) return;
  for (;;) {
    const action = (await raw(t, 'GET', `/v2/bulkActions/${actionId}`)).body as { state: string };
    if (action.state === 'FINISHED') return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Empties the server between cases: every pending message, DLQ entry and run cancelled or deleted. */
async function reset(): Promise<void> {
  await raw(t, 'DELETE', '/v2/workflows/runs', { body: '{}', headers: { 'content-type': 'application/json' } });
  await raw(t, 'DELETE', '/v2/messages');
  await raw(t, 'DELETE', '/v2/dlq?count=1000');
  t.events.length = 0;
}
