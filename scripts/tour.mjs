// The guided tour behind `npm start`: a local dev server, the Express example app, and nine short
// scenes a newcomer can read. Each scene checks what really happened, so `--tour-only` is also a
// smoke test of the whole toolkit.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { startDevServer } from '@mailroom/dev-server';
import { createMessagingClient, createManagementClient, createReceiver } from '@mailroom/core';
import { handleNodeRequest, writeOutbound } from '@mailroom/core/adapter';
import { Client as QStashClient, Receiver } from '@upstash/qstash';
import { Client as WorkflowClient, serve } from '@upstash/workflow';
import { createApp, orderPlaced } from '../examples/express/dist/app.js';

const tourOnly = process.argv.includes('--tour-only') || process.env.CI === 'true';
const bold = (s) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);
const dim = (s) => (process.stdout.isTTY ? `\x1b[2m${s}\x1b[0m` : s);
const results = [];

async function listenOn(server, preferred) {
  // The documented ports when free; any free port otherwise, so a busy 8288 never breaks the tour.
  for (const port of [preferred, 0]) {
    try {
      await new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => resolve());
      });
      return `http://127.0.0.1:${server.address().port}`;
    } catch (error) {
      if (error.code !== 'EADDRINUSE') throw error;
    }
  }
  throw new Error('no free port');
}

// Time runs 20 times faster in the tour, so a cron minute takes 3 s (every wait is scaled alike).
const TIME_SCALE = 0.05;

async function startDev() {
  const options = { log: tourOnly ? 'silent' : 'text', timeScale: TIME_SCALE };
  try {
    return await startDevServer({ port: 8288, ...options });
  } catch (error) {
    if (error?.code !== 'EADDRINUSE') throw error;
    return startDevServer({ port: 0, ...options });
  }
}

/** Opens the console in the default browser, when there is a person at a terminal to see it. */
function openInBrowser(url) {
  if (tourOnly || !process.stdout.isTTY) return;
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  try {
    spawn(command, [url], { stdio: 'ignore', detached: true })
      .on('error', () => {})
      .unref();
  } catch {
    // No browser here (a container, a remote shell): the link is printed above.
  }
}

/** Waits for `predicate` over a bounded time: the dev server delivers for real, over sockets. */
async function until(what, predicate, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function scene(title, run) {
  console.log(`\n${bold(`▸ ${title}`)}`);
  try {
    await run((line) => console.log(`  ${line}`));
    results.push({ title, ok: true });
    console.log(`  ${bold('✓')} as expected`);
  } catch (error) {
    results.push({ title, ok: false, error });
    console.log(`  ✗ ${error instanceof Error ? error.message : String(error)}`);
  }
}

const dev = await startDev();
const keys = { currentSigningKey: dev.currentSigningKey, nextSigningKey: dev.nextSigningKey };
const { app, events } = createApp({ ...keys, onError: () => {} });
const appServer = createServer(app);
const appUrl = await listenOn(appServer, 3000);

// A durable workflow of the service's Workflow SDK, unchanged. The SDK speaks the service's own
// header prefix, so its runs go through a second dev server started with `--header-prefix Upstash`.
const workflowDev = await startDevServer({ port: 0, log: 'silent', timeScale: TIME_SCALE, headerPrefix: 'Upstash', issuer: 'Upstash' });
let paymentsDown = true;
const workflowSteps = [];
let reservations = 0;
const { handler: checkout } = serve(
  async (context) => {
    const order = await context.run('reserve stock', () => {
      reservations += 1;
      return { orderId: context.requestPayload.orderId, reserved: true };
    });
    await context.sleep('cool down', 2);
    const { eventData } = await context.waitForEvent('approval', `approve-${order.orderId}`, { timeout: '1h' });
    await context.run('charge', () => {
      if (paymentsDown) throw new Error('the payment provider is down');
      workflowSteps.push({ ...order, approvedBy: eventData.by });
    });
    return 'paid';
  },
  {
    qstashClient: new QStashClient({ baseUrl: workflowDev.url, token: workflowDev.token }),
    receiver: new Receiver({ currentSigningKey: workflowDev.currentSigningKey, nextSigningKey: workflowDev.nextSigningKey }),
    disableTelemetry: true,
  },
);
const workflowServer = createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const body = Buffer.concat(chunks);
  const headers = new Headers(Object.entries(req.headers).filter(([, value]) => typeof value === 'string'));
  const response = await checkout(
    new Request(`${workflowAppUrl}${req.url}`, { method: req.method, headers, ...(body.length ? { body } : {}) }),
  );
  res.writeHead(response.status, Object.fromEntries(response.headers)).end(Buffer.from(await response.arrayBuffer()));
});
const workflowAppUrl = await listenOn(workflowServer, 0);

// A deliberately flaky pager for the failure-callback scene: down on its first call, up afterwards,
// so the DLQ shows CALLBACK_FAIL and the manual re-trigger visibly succeeds.
let pagerCalls = 0;
const pagerReceiver = createReceiver({ ...keys, onError: () => {} });
const pager = pagerReceiver.failureCallback(() => {
  pagerCalls += 1;
  if (pagerCalls === 1) throw new Error('pager is down');
});
const pagerServer = createServer(async (req, res) => writeOutbound(res, await handleNodeRequest(pager, req)));
const pagerUrl = await listenOn(pagerServer, 0);

const client = createMessagingClient({ baseUrl: dev.url, token: dev.token, appUrl, env: {} });
const management = createManagementClient({
  baseUrl: dev.managementUrl,
  user: dev.managementUser,
  password: dev.managementPassword,
  env: {},
});

console.log(bold('Mailroom tour'));
console.log(`Console: ${bold(dev.consoleUrl)}  (open it now: every scene below shows up there, live)`);
console.log(dim(`dev server ${dev.url} (management ${dev.managementUrl}); example app ${appUrl}`));
console.log(dim(`time runs ${1 / TIME_SCALE}x faster here (timeScale ${TIME_SCALE}): a cron minute is ${60 * TIME_SCALE} s`));

await scene('1. A typed message is delivered, verified and handled', async (say) => {
  const { messageId } = await client.send(orderPlaced, { orderId: 'tour-1', total: 42 });
  say(`client.send(orderPlaced, { orderId: 'tour-1', total: 42 }) -> ${messageId}`);
  const stored = await until('the order to be stored', () =>
    events.find((e) => e.kind === 'order' && e.orderId === 'tour-1' && e.outcome === 'stored'),
  );
  say(`the app verified the signature and stored order ${stored.orderId} (attempt ${stored.retried + 1})`);
});

await scene('2. A message fails twice, is retried, then succeeds; a callback after every attempt', async (say) => {
  await client.send(
    orderPlaced,
    { orderId: 'tour-2', total: 7, failTimes: 2 },
    { retries: 3, retryDelay: '200 * (1 + retried)', callback: `${appUrl}/callbacks` },
  );
  say(`retries: 3, retryDelay: '200 * (1 + retried)' ms, callback: ${appUrl}/callbacks`);
  await until('three attempts', () => events.filter((e) => e.kind === 'order' && e.orderId === 'tour-2').length === 3);
  const callbacks = await until('three callbacks', () => {
    const seen = events.filter((e) => e.kind === 'callback' && e.orderId === 'tour-2');
    return seen.length === 3 && seen;
  });
  for (const event of events.filter((e) => e.kind === 'order' && e.orderId === 'tour-2'))
    say(`attempt ${event.retried + 1}: ${event.outcome}`);
  for (const cb of callbacks) say(`callback: status ${cb.status}, retried ${cb.retried}, final ${cb.isFinalAttempt}`);
  if (callbacks.map((c) => c.status).join() !== '500,500,200')
    throw new Error(`unexpected callback statuses ${callbacks.map((c) => c.status).join()}`);
});

await scene('3. A message fails for good: failure callback, workflow DLQ entry, manual re-trigger', async (say) => {
  const runId = `wfr_tour_${Date.now().toString(36)}`;
  await client.send(
    orderPlaced,
    { orderId: 'tour-3', total: 1, failTimes: 99 },
    {
      queue: 'tour-failures',
      retries: 1,
      retryDelay: '100',
      failureCallback: { url: pagerUrl, retries: 0 },
      workflow: { runId, url: `${appUrl}${orderPlaced.path}` },
      label: 'tour',
    },
  );
  say('retries: 1 -> two failed attempts, then the failure callback (the pager is down on its first call)');
  const entry = await until('a DLQ entry with a failed failure callback', async () => {
    const page = await client.workflowDlq.list({ label: 'tour' });
    return page.messages.find((m) => m.failureCallbackInfo?.state === 'CALLBACK_FAIL');
  });
  say(`DLQ entry ${entry.dlqId}: responseStatus ${entry.responseStatus}, failure callback ${entry.failureCallbackInfo?.state}`);
  const retriggered = await client.workflowDlq.retriggerFailureCallback(entry.dlqId);
  say(`re-triggered the failure callback of run ${retriggered.workflowRunId}`);
  const after = await until('the failure callback to succeed', async () => {
    const page = await client.workflowDlq.list({ label: 'tour' });
    return page.messages.find((m) => m.dlqId === entry.dlqId && m.failureCallbackInfo?.state === 'CALLBACK_SUCCESS');
  });
  say(`failure callback now ${after.failureCallbackInfo?.state}`);
});

await scene('4. A URL group fans one message out to every endpoint', async (say) => {
  await client.urlGroups.addEndpoints('tour-orders', [
    { name: 'primary', url: `${appUrl}${orderPlaced.path}` },
    { name: 'replica', url: `${appUrl}${orderPlaced.path}?copy=replica` },
  ]);
  const results = await client.enqueueJSON({ queue: 'tour-fanout', destination: 'tour-orders', body: { orderId: 'tour-4', total: 3 } });
  say(`enqueue to URL group 'tour-orders' -> ${results.length} messages`);
  await until('both copies', () => events.filter((e) => e.kind === 'order' && e.orderId === 'tour-4').length === 2);
  say('both endpoints received their own signed copy');
});

await scene('5. A duplicate is recognised by its deduplication id', async (say) => {
  const first = await client.send(orderPlaced, { orderId: 'tour-5', total: 5 }, { deduplicationId: 'tour-order-5' });
  const second = await client.send(orderPlaced, { orderId: 'tour-5', total: 5 }, { deduplicationId: 'tour-order-5' });
  say(`first ${first.messageId}; second ${second.messageId}, deduplicated: ${second.deduplicated === true}`);
  if (second.messageId !== first.messageId || second.deduplicated !== true) throw new Error('the duplicate was not recognised');
  await until('the order', () => events.some((e) => e.kind === 'order' && e.orderId === 'tour-5'));
  if (events.filter((e) => e.kind === 'order' && e.orderId === 'tour-5').length !== 1) throw new Error('delivered twice');
});

await scene('6. A schedule fires on its cron, each firing a normal signed message', async (say) => {
  const { scheduleId } = await client.schedules.createJSON({
    destination: `${appUrl}${orderPlaced.path}`,
    cron: '* * * * *',
    body: { orderId: 'tour-6', total: 6 },
    scheduleId: 'tour-every-minute',
  });
  const schedule = await client.schedules.get(scheduleId);
  say(
    `schedule ${scheduleId} ('* * * * *'): next firing ${new Date(schedule.nextScheduleTime).toISOString()} (a cron minute lasts 3 s here)`,
  );
  await until('two firings', () => events.filter((e) => e.kind === 'order' && e.orderId === 'tour-6').length >= 2, 20_000);
  await client.schedules.pause(scheduleId);
  say('fired twice, each delivery verified by the app; paused it so it stops');
});

await scene('7. A paused queue accepts messages and holds them until it is resumed', async (say) => {
  await client.queues.upsert({ name: 'tour-held', paused: true });
  await client.send(orderPlaced, { orderId: 'tour-7', total: 7 }, { queue: 'tour-held' });
  await new Promise((resolve) => setTimeout(resolve, 500));
  const held = await client.queues.get('tour-held');
  say(`queue tour-held is paused with ${held.lag} message waiting; the app has seen none`);
  if (events.some((e) => e.kind === 'order' && e.orderId === 'tour-7')) throw new Error('a paused queue delivered');
  await client.queues.resume('tour-held');
  await until('the held order', () => events.some((e) => e.kind === 'order' && e.orderId === 'tour-7'));
  say('resumed: the message was delivered at once');
});

await scene('8. Statistics count what really happened', async (say) => {
  const [user] = await management.users();
  const stats = await management.stats(user.id, { period: '1h' });
  const delivered = stats.daily_messaging_messages.find((s) => s.id === 'delivered');
  const total = delivered ? delivered.data_points.reduce((sum, p) => sum + p.y, 0) : 0;
  say(`user ${user.customer_id} (${user.type} plan): ${total} deliveries in the last hour, DLQ holds ${stats.dlq_message_count}`);
  if (total < 1) throw new Error('no deliveries counted');
});

await scene('9. A durable workflow: a step, a sleep, a wait released by notify, a failing step resumed from the DLQ', async (say) => {
  const workflows = createMessagingClient({ baseUrl: workflowDev.url, token: workflowDev.token, headerPrefix: 'Upstash', env: {} });
  const { workflowRunId } = await new WorkflowClient({ baseUrl: workflowDev.url, token: workflowDev.token }).trigger({
    url: `${workflowAppUrl}/api/checkout`,
    body: { orderId: 'tour-9' },
    retries: 0,
  });
  await until('the run to wait for its approval', async () => (await workflows.workflows.waiters('approve-tour-9')).length > 0);
  say(`run ${workflowRunId}: stock reserved, slept 2 s, now waits for approve-tour-9`);
  await workflows.workflows.notify('approve-tour-9', { by: 'ada' });
  const failedRun = await until('the run to fail', async () => {
    const [run] = (await workflows.workflows.logs({ workflowRunId })).runs;
    return run?.workflowState === 'RUN_FAILED' && run;
  });
  say('notified; the charge step failed for good (the payment provider is down): the run is in the workflow DLQ');
  paymentsDown = false;
  // As the service does, resuming starts a new run that carries the history on; the failed run keeps its failure.
  const [resumed] = await workflows.workflowDlq.resume(failedRun.dlqId);
  const done = await until('the resumed run to end', async () => {
    const [run] = (await workflows.workflows.logs({ workflowRunId: resumed.workflowRunId })).runs;
    return run?.workflowState === 'RUN_SUCCESS' && run;
  });
  if (workflowSteps.length !== 1 || workflowSteps[0].approvedBy !== 'ada') throw new Error('the charge did not see the approval');
  if (reservations !== 1) throw new Error(`the stock was reserved ${reservations} times`);
  say(
    `resumed from the failed step as run ${resumed.workflowRunId} (the stock was not reserved again): ${done.workflowState}, returned ${done.workflowRunResponse}`,
  );
  say(`every step of it: the workflow console, Workflows (${workflowDev.url}/console/)`);
});

const failed = results.filter((r) => !r.ok);
console.log(`\n${bold('Summary')}: ${results.length - failed.length} of ${results.length} scenes behaved as expected.`);

if (tourOnly) {
  await Promise.all([
    dev.close(),
    workflowDev.close(),
    new Promise((r) => appServer.close(r)),
    new Promise((r) => pagerServer.close(r)),
    new Promise((r) => workflowServer.close(r)),
  ]);
  workflowServer.closeAllConnections?.();
  appServer.closeAllConnections?.();
  process.exit(failed.length === 0 ? 0 : 1);
}

openInBrowser(dev.consoleUrl);
console.log(`
${bold('The dev console')}: ${dev.consoleUrl}
  every message above, its attempts and callbacks, the DLQ, queues and schedules, and a form to send your own.
${bold('The workflow console')}: ${workflowDev.consoleUrl}
  the workflow run of scene 9 step by step (Workflows), on the dev server with the service's header prefix.

${bold('Still running')} (waits are still ${1 / TIME_SCALE}x faster). Send your own message (Ctrl-C to stop):

  curl -X POST '${dev.url}/v2/enqueue/my-queue/${appUrl}${orderPlaced.path}' \\
    -H 'Authorization: Bearer ${dev.token}' -H 'Content-Type: application/json' \\
    -d '{"orderId":"mine","total":1}'

  // or from code
  import { createMessagingClient } from '@mailroom/core';
  const client = createMessagingClient({ baseUrl: '${dev.url}', token: '${dev.token}' });
  await client.enqueueJSON({ queue: 'my-queue', destination: '${appUrl}${orderPlaced.path}', body: { orderId: 'mine', total: 1 } });

  Then: curl ${appUrl}/events
`);
const stop = async () => {
  await Promise.all([dev.close(), workflowDev.close()]);
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
