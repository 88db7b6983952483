// Workflow steps per second on `mailroom dev`: runs of the vendor's Workflow SDK (its generic
// `serve`), each of STEPS `context.run` steps, RUNS at once, against a floor measured in the same
// run on the same server: chains of plain messages where each delivery publishes the next, the same
// number of publish -> signed delivery -> verify hops without the workflow layer.
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { startDevServer } from '@mailroom/dev-server';
import { Client as QStashClient, Receiver } from '@upstash/qstash';
import { Client as WorkflowClient, serve } from '@upstash/workflow';
import { check, log, report } from './lib/child.mjs';
import { alternate } from './lib/rounds.mjs';
import { pairedRatio, summarise } from './lib/stats.mjs';

const STEPS = 10;

await report(async ({ smoke }) => {
  const runsAtOnce = smoke ? 4 : 20;
  const dev = await startDevServer({ port: 0, log: 'silent', timeScale: 0, headerPrefix: 'Upstash', issuer: 'Upstash', plan: 'paid' });
  const qstash = new QStashClient({ baseUrl: dev.url, token: dev.token });
  const receiver = new Receiver({ currentSigningKey: dev.currentSigningKey, nextSigningKey: dev.nextSigningKey });
  // Run id -> its end state, or the resolver of whoever waits for it.
  const ended = new Map();
  const endOf = (runId) =>
    new Promise((resolve) => {
      const state = ended.get(runId);
      if (typeof state === 'string') resolve(state);
      else ended.set(runId, resolve);
    });
  const { handler: workflow } = serve(
    async (context) => {
      let total = 0;
      for (let step = 0; step < STEPS; step++) total = await context.run(`step ${step}`, () => total + 1);
      return total;
    },
    { qstashClient: qstash, receiver, disableTelemetry: true },
  );
  // The floor: each verified delivery publishes the next message of its chain, until STEPS + 1 hops.
  const chains = new Map();
  const chain = async (request) => {
    const body = await request.text();
    const valid = await receiver.verify({ signature: request.headers.get('upstash-signature') ?? '', body, url: request.url });
    if (!valid) return new Response('forged', { status: 401 });
    const { id, hop } = JSON.parse(body);
    if (hop < STEPS) await qstash.publishJSON({ url: `${appUrl}/chain`, body: { id, hop: hop + 1 } });
    else chains.get(id)?.();
    return new Response('ok');
  };
  const app = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    const headers = new Headers(Object.entries(req.headers).filter(([, value]) => typeof value === 'string'));
    const request = new Request(`${appUrl}${req.url}`, { method: 'POST', headers, ...(body.length ? { body } : {}) });
    const response = await (req.url === '/chain' ? chain(request) : workflow(request));
    res.writeHead(response.status, Object.fromEntries(response.headers)).end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise((resolve) => app.listen(0, '127.0.0.1', resolve));
  const appUrl = `http://127.0.0.1:${app.address().port}`;
  const unsubscribe = dev.subscribe((event) => {
    if (event.type !== 'workflow-run') return;
    const waiting = ended.get(event.runId);
    if (typeof waiting === 'function') waiting(event.state);
    else ended.set(event.runId, event.state);
  });
  const client = new WorkflowClient({ baseUrl: dev.url, token: dev.token });

  /** RUNS workflow runs at once; answers steps per second, every run checked to end in success. */
  const workflowRound = async () => {
    const start = performance.now();
    const states = await Promise.all(
      Array.from({ length: runsAtOnce }, async () => {
        const { workflowRunId } = await client.trigger({ url: `${appUrl}/workflow`, body: 'go' });
        return endOf(workflowRunId);
      }),
    );
    const seconds = (performance.now() - start) / 1000;
    check(
      states.every((state) => state === 'RUN_SUCCESS'),
      `every workflow run succeeds (${states.join(', ')})`,
    );
    return (runsAtOnce * STEPS) / seconds;
  };
  let chainCount = 0;
  /** As many chains of plain messages at once; answers hops per second. */
  const chainRound = async () => {
    const start = performance.now();
    await Promise.all(
      Array.from({ length: runsAtOnce }, async () => {
        const id = ++chainCount;
        const done = new Promise((resolve) => chains.set(id, resolve));
        await qstash.publishJSON({ url: `${appUrl}/chain`, body: { id, hop: 1 } });
        return done;
      }),
    );
    return (runsAtOnce * STEPS) / ((performance.now() - start) / 1000);
  };
  try {
    const samples = await alternate(
      [
        { name: 'workflow', measure: workflowRound },
        { name: 'chain', measure: chainRound },
      ],
      { rounds: smoke ? 1 : 5, warmup: !smoke, log: (line) => log(`workflow ${line}`) },
    );
    const ratio = pairedRatio(samples.workflow, samples.chain);
    log(
      `workflow steps/s ${samples.workflow.map((v) => v.toFixed(0)).join(' ')}; chained messages/s ${samples.chain.map((v) => v.toFixed(0)).join(' ')}`,
    );
    const section = '6. Workflows on the dev server';
    const rows = [
      {
        section,
        case: `${runsAtOnce} runs of ${STEPS} steps at once`,
        contender: 'Workflow SDK context.run steps',
        unit: 'steps/s',
        higherIsBetter: true,
        value: summarise(samples.workflow),
        ratios: [{ vs: 'chained messages', ...ratio }],
        // A step is two exchanges, as a chained message is (the SDK's publish, the delivery carrying the
        // run's history); the rest is the SDK's own work: decoding the history, replaying the steps before.
        // The speed issue's target: 0.6x (0.67x was the bound while the SDK fetched each history itself).
        targets: [{ text: '>= 0.6x chained messages', met: ratio.median >= 0.6 }],
      },
      {
        section,
        case: `${runsAtOnce} chains of ${STEPS} hops at once`,
        contender: 'floor: chained plain messages (each delivery publishes the next)',
        unit: 'msg/s',
        higherIsBetter: true,
        value: summarise(samples.chain),
        ratios: [],
        targets: [],
      },
    ];
    return {
      id: 'workflow',
      rows,
      checks: ['workflow: every run of the Workflow SDK ended RUN_SUCCESS; every chained delivery verified with the vendor Receiver'],
      notes: [
        `Workflows: the dev server (in memory, time scale 0, header prefix and issuer Upstash) and one node:http app sharing the bench's process; a step is one publish by the SDK, one signed delivery carrying the run's history, verified and run by the SDK. The floor is the same count of publish -> delivery -> verify hops as plain messages (@upstash/qstash publishJSON, Receiver.verify). ${smoke ? 1 : 5} rounds after a warm-up, alternating.`,
      ],
    };
  } finally {
    unsubscribe();
    app.closeAllConnections();
    app.close();
    await dev.close();
  }
});
