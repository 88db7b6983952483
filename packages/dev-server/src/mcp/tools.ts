import { headerNames } from '@mailroom/core/internal-protocol';
import { z } from 'zod';
import { SETUP_TOOLS } from './setup-tools';
import { bulk, calling, count, done, id, listed, type McpTool, paged, path } from './tool-kit';

// What an agent can do with `mailroom dev`: find messages and read their story, act on them, the
// DLQ, workflow runs, faults, and send. What the service is set up with is in setup-tools.ts.

/** Every tool, in the order a client lists them. */
export const MCP_TOOLS: readonly McpTool[] = [
  calling(
    'find_messages',
    'Find messages',
    "The console's message list, newest first: filter by state (CREATED, ACTIVE, RETRY, DELIVERED, FAILED, CANCELED), queue, URL, label, text in the body, workflow run, or time range. Paged (count, cursor).",
    'GET /dev/messages',
    {},
    true,
    paged('messages', 'messages'),
  ),
  calling(
    'message_story',
    "A message's story",
    'One message from publish to its end: every attempt as sent and answered (status, headers, body, duration, why the next retry waited), its callbacks, resends and DLQ entry. Start here to see why a message failed.',
    'GET /dev/messages/:messageId',
    { messageId: id('the message id (msg_...)') },
    false,
    (answer) => (answer.status === 200 ? 'the message and every attempt' : `no such message (${answer.status})`),
  ),
  calling(
    'list_dlq',
    'List the DLQ',
    'Messages that ran out of retries, newest first, with the last answer.',
    'GET /v2/dlq',
    {},
    true,
    paged('DLQ entries', 'messages'),
  ),
  calling(
    'list_logs',
    'Read the logs',
    "The service's log of message events (CREATED, ACTIVE, DELIVERED, ERROR, RETRY, FAILED...), newest first.",
    'GET /v2/events',
    {},
    true,
    paged('log entries', 'events'),
  ),
  calling(
    'list_workflow_runs',
    'List workflow runs',
    'Workflow runs, newest first, with their state (RUN_STARTED, RUN_SUCCESS, RUN_FAILED, RUN_CANCELED) and steps.',
    'GET /v2/workflows/events',
    {},
    true,
    paged('runs', 'runs'),
  ),
  calling(
    'workflow_run',
    "A workflow run's timeline",
    "One run step by step: each step's result, the waits and what ended them, its failure function.",
    'GET /v2/workflows/runs/:runId',
    { runId: id('the run id (wfr_...)') },
    false,
    (answer) => (answer.status === 200 ? 'the run, step by step' : `no such run (${answer.status})`),
  ),
  calling(
    'list_faults',
    'List faults',
    'The faults in force (duplicate, lose-answer, throttle, skew-clock).',
    'GET /dev/faults',
    {},
    false,
    (answer) => `${count(answer.json, 'faults')} faults in force`,
  ),
  calling(
    'deliver_now',
    'Deliver now',
    'Deliver a waiting message now (a delay, a retry backoff or a queue), instead of when its wait ends.',
    'POST /v2/messages/:id/retry',
    { id: id('the message id (msg_...)') },
    false,
    done('released: it is being delivered now'),
  ),
  calling(
    'time_out_waits',
    "Time out a run's waits",
    'End every wait of a workflow run (waitForEvent, webhook, invoke) as its timeout would, now.',
    'POST /dev/workflows/runs/:runId/time-out',
    { runId: id('the run id') },
    false,
    (answer) => `${(answer.json as { timedOut?: number } | undefined)?.timedOut ?? 0} waits timed out`,
  ),
  {
    name: 'resend_message',
    title: 'Edit and resend',
    description:
      'Send a message again, with its body and forwarded headers changed or as they were: a new message to the same destination.',
    route: 'POST /dev/messages/:messageId/resend',
    input: {
      messageId: id('the message to resend'),
      body: z.string().optional().describe('the new body, as text; the original when absent'),
      headers: z.record(z.string(), z.string()).optional().describe('forwarded headers, as the destination receives them'),
    },
    filters: false,
    call: (args) => ({
      method: 'POST',
      target: path('/dev/messages/:messageId/resend', args),
      body: { ...(args.body !== undefined ? { body: args.body } : {}), ...(args.headers !== undefined ? { headers: args.headers } : {}) },
    }),
    summary: (answer) => `resent as ${(answer.json as { messageId?: string } | undefined)?.messageId ?? `nothing (${answer.status})`}`,
  },
  calling(
    'cancel_message',
    'Cancel a message',
    'Cancel one pending message.',
    'DELETE /v2/messages/:id',
    { id: id('the message id') },
    false,
    done('canceled'),
  ),
  calling(
    'cancel_messages',
    'Cancel matching messages',
    "Cancel every pending message the console's filters match (at least one filter). Runs in the background.",
    'DELETE /dev/messages',
    {},
    true,
    bulk('canceling'),
  ),
  calling(
    'retry_dlq',
    'Retry from the DLQ',
    'Publish DLQ entries again: by dlqIds, or every entry a filter matches.',
    'POST /v2/dlq/retry',
    {},
    true,
    bulk('retried'),
  ),
  calling(
    'delete_dlq',
    'Delete from the DLQ',
    'Delete DLQ entries: by dlqIds, or every entry a filter matches.',
    'DELETE /v2/dlq',
    {},
    true,
    bulk('deleted'),
  ),
  {
    name: 'set_fault',
    title: 'Set a fault',
    description:
      'Make deliveries misbehave on purpose: duplicate (deliver twice), lose-answer (the answer never arrives), throttle (the service refuses sends with a status), skew-clock (signatures from a wrong clock).',
    route: 'POST /dev/faults',
    input: {
      kind: z.enum(['duplicate', 'lose-answer', 'throttle', 'skew-clock']),
      to: z.string().min(1).optional().describe('only deliveries to URLs containing this'),
      times: z.number().int().positive().optional().describe('how many times, then it ends'),
      status: z.number().int().optional().describe('throttle: the status to answer'),
      retryAfter: z.string().optional().describe('throttle: Retry-After, e.g. 5s'),
      by: z.string().optional().describe('skew-clock: e.g. -10m'),
    },
    filters: false,
    call: (args) => ({ method: 'POST', target: '/dev/faults', body: args }),
    summary: (answer) => `fault ${(answer.json as { id?: string } | undefined)?.id ?? `not set (${answer.status})`} in force`,
  },
  calling(
    'clear_faults',
    'Clear faults',
    'End every fault in force.',
    'DELETE /dev/faults',
    {},
    false,
    (answer) => `${(answer.json as { removed?: number } | undefined)?.removed ?? 0} faults cleared`,
  ),
  {
    name: 'notify_run',
    title: 'Notify a waiting run',
    description: 'Send an event to a workflow run waiting for it (context.waitForEvent), with its data.',
    route: 'POST /v2/notify/:runId/:eventId',
    input: {
      runId: id('the run id'),
      eventId: id('the event id the run waits for'),
      data: z.unknown().optional().describe('the event data (JSON)'),
    },
    filters: false,
    call: (args) => ({ method: 'POST', target: path('/v2/notify/:runId/:eventId', args), body: args.data }),
    summary: listed('waiters notified'),
  },
  {
    name: 'send',
    title: 'Send a message',
    description: "Publish a message to a destination URL (your app's endpoint), as client.send does, signed like every delivery.",
    route: 'POST /v2/publish/*',
    input: {
      url: z.string().url().describe('the destination, e.g. http://localhost:3000/api/orders'),
      body: z.unknown().optional().describe('the JSON body'),
      delay: z.string().optional().describe('e.g. 10s, 5m'),
      retries: z.number().int().min(0).optional(),
      headers: z.record(z.string(), z.string()).optional().describe('forwarded to the destination'),
    },
    filters: false,
    call: (args, { headerPrefix }) => {
      const names = headerNames(headerPrefix);
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (typeof args.delay === 'string') headers[names.delivery.delay.toLowerCase()] = args.delay;
      if (typeof args.retries === 'number') headers[names.delivery.retries.toLowerCase()] = String(args.retries);
      for (const [name, value] of Object.entries((args.headers as Record<string, string> | undefined) ?? {}))
        headers[`${names.delivery.forwardPrefix}${name}`.toLowerCase()] = value;
      return { method: 'POST', target: `/v2/publish/${String(args.url)}`, body: args.body, headers };
    },
    summary: (answer) => `sent as ${(answer.json as { messageId?: string } | undefined)?.messageId ?? `nothing (${answer.status})`}`,
  },
  ...SETUP_TOOLS,
];
