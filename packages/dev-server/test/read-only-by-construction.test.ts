import { describe, expect, it } from 'vitest';
import { QUERY_FORMS } from '../src/http/filters';
import { allRoutes } from '../src/http/routes';
import type { Route } from '../src/http/router';
import type { Service } from '../src/service';
import { always } from './helpers/destination';
import { raw } from './helpers/raw';
import { destination, t, useTestServer } from './helpers/test-server';

// Read-only is read-only, generated from the route table: a server seeded with every kind of secret
// (a delivery's signature, a webhook's event id, credentials in a URL, a forwarded Bearer token, a
// redacted header's value, the signing keys, the full token, the management password), then every
// route the read-only token may call, with every parameter it can fill and every filter it takes set
// to a piece of each secret and to each whole secret. No answer (status, headers, body) holds a
// secret or a piece of one, and no search or filter finds anything by a piece of a secret: its answer
// is the answer to a value that names nothing. A route added without its read-only decision does not
// compile; one added as `answer` is walked here.

// Real time: a message delayed an hour stays pending for the whole walk, whatever the machine's load.
useTestServer({ timeScale: 1 });

const READABLE = allRoutes({} as Service).filter((route) => route.auth === 'messaging' && route.readOnly === 'answer');

// Chosen secrets carry `~`, which no id, time or base64 of the server holds, so any 4-character
// piece of one that shows up was leaked rather than met by chance.
const PASSWORD = 'pw~Xy7~Zq3~Lk';
const BEARER = 'tok~Ab1~Cd2~Ef';
const API_KEY = 'key~Gh4~Ij5~Kl';
const WEBHOOK = 'whk~Mn6~Op7~Qr';
const CHOSEN = [PASSWORD, BEARER, API_KEY, WEBHOOK];

/** Every `size`-character piece of a text. */
const pieces = (text: string, size: number) => Array.from({ length: text.length - size + 1 }, (_, at) => text.slice(at, at + size));

interface Seeded {
  params: Record<string, string[]>;
  /** Secrets the server drew at random: checked by their 12-character pieces (4 would meet random ids by chance). */
  random: string[];
}

async function seed(): Promise<Seeded> {
  const url = destination.url;
  const credentialed = url.replace('http://', `http://alice:${PASSWORD}@`);
  destination.script('/fail', always(500));
  const forward = {
    'Service-Forward-Authorization': `Bearer ${BEARER}`,
    'Service-Forward-X-Api-Key': API_KEY,
    'Service-Redact-Fields': 'header[X-Api-Key]',
  };
  const publish = async (target: string, headers: Record<string, string>, body = 'hello') =>
    ((await raw(t, 'POST', `/v2/publish/${target}`, { body, headers })).body as { messageId: string }).messageId;
  // Delivered (its signature in the logs), waiting (its URL and headers pending), failed (in the DLQ).
  const delivered = await publish(`${credentialed}/ok`, { ...forward, 'Service-Callback': `${credentialed}/cb` });
  const waiting = await publish(`${credentialed}/later`, { ...forward, 'Service-Delay': '1h', 'Service-Callback': `${credentialed}/cb` });
  const failed = await publish(`${credentialed}/fail`, { ...forward, 'Service-Retries': '0' });
  // A run with a webhook step: its event id is the whole credential of the webhook's public URL.
  const run = 'wfr_secret';
  const workflow = { 'Service-Workflow-RunId': run, 'Service-Workflow-Url': `${credentialed}/wf` };
  await publish(`${url}/wf`, { ...workflow, 'Service-Workflow-Init': 'true', 'Service-Delay': '1h' }, '{}');
  const step = JSON.stringify({
    stepId: 1,
    stepName: 'hook',
    stepType: 'CreateWebhook',
    concurrent: 1,
    out: JSON.stringify({ webhookUrl: `${url}/v2/workflows/hooks/u/${run}/${WEBHOOK}`, eventId: WEBHOOK }),
  });
  const webhookStep = await publish(`${url}/wf`, { ...workflow, 'Service-Delay': '1h', 'Content-Type': 'application/json' }, step);
  const schedule = (
    (await raw(t, 'POST', `/v2/schedules/${credentialed}/tick`, { body: 'tick', headers: { ...forward, 'Service-Cron': '0 0 1 1 *' } }))
      .body as { scheduleId: string }
  ).scheduleId;
  await raw(t, 'POST', '/v2/queues', {
    body: JSON.stringify({ queueName: 'q1', parallelism: 1 }),
    headers: { 'content-type': 'application/json' },
  });
  await t.waitForEvents('delivered', 1, (event) => event.messageId === delivered);
  // Its callback, whose body carries the message's headers (the redacted one among them) and body.
  await t.waitForEvents('delivered', 1, (event) => event.kind === 'callback');
  const [dlq] = await t.waitForEvents('dlq', 1, (event) => event.messageId === failed);
  const signatures = ['/ok', '/fail'].flatMap((path) =>
    destination.received(path).map((request) => String(request.headers['service-signature'])),
  );
  expect(signatures.length).toBeGreaterThanOrEqual(2);
  return {
    params: {
      id: [waiting, delivered, schedule],
      messageId: [delivered, waiting, failed, webhookStep],
      dlqId: [dlq!.dlqId],
      runId: [run],
      eventId: [WEBHOOK],
      name: ['q1'],
      key: ['none'],
      actionId: ['none'],
    },
    random: [
      ...signatures.map((token) => token.split('.')[2]!),
      t.server.token,
      t.server.managementPassword,
      t.server.currentSigningKey,
      t.server.nextSigningKey,
    ],
  };
}

/** Every request target a route can be called with: each combination of its parameters' seeded values. */
function targets(route: Route, params: Record<string, string[]>): string[] {
  let out = [route.path];
  for (const name of route.path.match(/:[A-Za-z]+/g) ?? []) {
    const values = params[name.slice(1)] ?? ['x'];
    out = out.flatMap((path) => values.map((value) => path.replace(name, encodeURIComponent(value))));
  }
  return out;
}

function leaks(text: string, seeded: Seeded): string[] {
  const found: string[] = [];
  for (const secret of CHOSEN) for (const piece of pieces(secret, 4)) if (text.includes(piece)) found.push(piece);
  for (const secret of seeded.random) for (const piece of pieces(secret, 12)) if (text.includes(piece)) found.push(piece);
  return [...new Set(found)];
}

describe('read-only by construction', () => {
  it('shows no secret, nor a piece of one, in any answer of any route the read-only token may call, and finds nothing by one', async () => {
    const seeded = await seed();
    const readOnly = { token: t.server.readOnlyToken };
    const probes = [
      ...CHOSEN.flatMap((secret) => [secret, ...pieces(secret, 4)]),
      `alice:${PASSWORD}`,
      `${destination.url.replace('http://', `http://alice:${PASSWORD}@`)}/later`,
    ];
    let answers = 0;
    for (const route of READABLE) {
      for (const path of targets(route, seeded.params)) {
        const plain = await raw(t, 'GET', path, readOnly);
        answers += 1;
        const seen = (answer: typeof plain) => `${answer.status} ${JSON.stringify([...answer.headers])} ${JSON.stringify(answer.body)}`;
        expect([path, leaks(seen(plain), seeded)]).toEqual([path, []]);
        // Filters that match stored text; the others take times, counts or fixed words, and refuse a secret's form.
        const names = route.query === 'not-read' ? [] : route.query.filter((name) => QUERY_FORMS[name] === 'word');
        for (const name of names) {
          const nothing = await raw(t, 'GET', `${path}?${name}=nothing-by-this-name`, readOnly);
          for (const probe of probes) {
            const answer = await raw(t, 'GET', `${path}?${name}=${encodeURIComponent(probe)}`, readOnly);
            answers += 1;
            expect([path, name, probe, leaks(seen(answer), seeded)]).toEqual([path, name, probe, []]);
            // A search by a piece of a secret finds what a search for nothing finds (or is refused alike).
            expect([path, name, probe, answer.status, answer.body]).toEqual([path, name, probe, nothing.status, nothing.body]);
          }
        }
      }
    }
    expect(answers).toBeGreaterThan(500);
  }, 120_000);

  it('still shows the full token every value, so the test above is not passing on an empty server', async () => {
    const seeded = await seed();
    const full = await raw(t, 'GET', `/dev/messages/${seeded.params.messageId![0]}`);
    const text = JSON.stringify(full.body);
    expect(text).toContain(PASSWORD);
    expect(text).toContain(BEARER);
    expect(leaks(text, seeded).length).toBeGreaterThan(0);
    // And the full token's search finds the secret the read-only token's cannot.
    const found = (await raw(t, 'GET', `/dev/messages?text=${encodeURIComponent(PASSWORD.slice(0, 4))}`)).body as { total: number };
    expect(found.total).toBeGreaterThan(0);
  });
});
