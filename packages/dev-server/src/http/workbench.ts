import { badRequest, planLimit } from '../errors';
import type { MessageEdits } from '../engine/actions';
import type { FaultInput } from '../state/records';
import type { Service } from '../service';
import { empty, json, type Route } from './router';
import { sendableHeader } from './sending';

// What only a local server offers, for the console and scripts: not part of the service's interface,
// under `/dev/` so no client of the service ever calls it by mistake. Each one that writes takes the
// full token (a POST, which the read-only token may not make).

export function workbenchRoutes(service: Service): Route[] {
  return [
    {
      method: 'POST',
      path: '/dev/messages/:messageId/resend',
      auth: 'messaging',
      readOnly: 'refuse',
      query: [],
      sends: true,
      // Every setting of the original (retries, callbacks, flow control, redaction): the console's Replay;
      // with `{ body?, headers? }`, its body (text) and forwarded headers edited first.
      handler: async (request) => {
        const { max_message_size: maxBytes } = service.plan;
        const edits = readEdits(
          await request.body(service.plan.max_message_size + 64 * 1024, () => badRequest('the edits exceed the max message size')),
          maxBytes,
        );
        return json({ messageId: (await service.actions.resendMessage(request.params.messageId ?? '', edits)).id });
      },
    },
    {
      method: 'POST',
      path: '/dev/schedules/:scheduleId/fire',
      auth: 'messaging',
      readOnly: 'refuse',
      query: [],
      sends: true,
      // "Fire now": one firing at once, as its cron would; the cron's next firing stays as it was.
      handler: async ({ params }) => {
        await service.actions.fireSchedule(params.scheduleId ?? '');
        return empty();
      },
    },
    {
      method: 'GET',
      path: '/dev/faults',
      auth: 'messaging',
      readOnly: 'answer',
      query: [],
      handler: () => json({ faults: service.faults.list() }),
    },
    {
      method: 'POST',
      path: '/dev/faults',
      auth: 'messaging',
      readOnly: 'refuse',
      query: [],
      // `{ kind, to?, times?, status?, retryAfter?, by? }`: the same rules as `--fault` and @mailroom/testing.
      handler: async (request) => {
        const raw = (await request.body(64 * 1024, () => badRequest('a fault is a small JSON object'))).toString('utf8');
        let input: FaultInput;
        try {
          input = JSON.parse(raw) as FaultInput;
        } catch {
          throw badRequest('the body is not JSON: send { "kind": "duplicate", "to": "/orders", "times": 2 }');
        }
        const { fault, committed } = service.faults.set(input);
        await committed;
        return json(fault);
      },
    },
    {
      method: 'DELETE',
      path: '/dev/faults',
      auth: 'messaging',
      readOnly: 'refuse',
      query: [],
      handler: async () => {
        const removed = service.faults.list().length;
        await service.faults.clear();
        return json({ removed });
      },
    },
    {
      method: 'DELETE',
      path: '/dev/faults/:id',
      auth: 'messaging',
      readOnly: 'refuse',
      query: [],
      handler: async ({ params }) => {
        await service.faults.remove(params.id ?? '');
        return json({ removed: 1 });
      },
    },
    {
      method: 'POST',
      path: '/dev/workflows/runs/:runId/time-out',
      auth: 'messaging',
      readOnly: 'refuse',
      query: [],
      sends: true,
      // "Time out now": each wait of the run (waitForEvent, waitForWebhook, invoke) ends as its timeout would.
      handler: async ({ params }) => json({ timedOut: await service.actions.timeOutWaits(params.runId ?? '') }),
    },
  ];
}

/** `{ body?: string, headers?: { name: value } }`: the text body and the headers forwarded as delivered. */
function readEdits(raw: Buffer, maxBytes: number): MessageEdits {
  if (raw.length === 0) return {};
  let given: { body?: unknown; headers?: unknown };
  try {
    given = JSON.parse(raw.toString('utf8')) as typeof given;
  } catch {
    throw badRequest('the edits are not JSON: send { "body": "...", "headers": { "Name": "value" } }, or nothing for a plain resend');
  }
  if (given === null || typeof given !== 'object' || Array.isArray(given)) throw badRequest('the edits are { body?, headers? }');
  const edits: MessageEdits = {};
  if (given.body !== undefined) {
    if (typeof given.body !== 'string') throw badRequest('body: expected the new body as text');
    edits.body = Buffer.from(given.body, 'utf8');
    if (edits.body.length > maxBytes) throw planLimit(`body: the edited body exceeds the max message size of the plan (${maxBytes} bytes)`);
  }
  if (given.headers !== undefined) {
    if (given.headers === null || typeof given.headers !== 'object' || Array.isArray(given.headers)) {
      throw badRequest('headers: expected an object of header names to values');
    }
    const forwardHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(given.headers)) {
      const text = sendableHeader('headers', name, value);
      if (name.toLowerCase() === 'content-type') edits.contentType = text;
      else forwardHeaders[name] = text;
    }
    edits.forwardHeaders = forwardHeaders;
  }
  return edits;
}
