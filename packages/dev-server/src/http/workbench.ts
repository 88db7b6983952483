import { badRequest } from '../errors';
import type { FaultInput } from '../state/records';
import type { Service } from '../service';
import { empty, json, type Route } from './router';

// What only a local server offers, for the console and scripts: not part of the service's interface,
// under `/dev/` so no client of the service ever calls it by mistake. Each one that writes takes the
// full token (a POST, which the read-only token may not make).

export function workbenchRoutes(service: Service): Route[] {
  return [
    {
      method: 'POST',
      path: '/dev/messages/:messageId/resend',
      auth: 'messaging',
      // Every setting of the original (retries, callbacks, flow control, redaction, headers, body): the console's Replay.
      handler: async ({ params }) => json({ messageId: (await service.actions.resendMessage(params.messageId ?? '')).id }),
    },
    {
      method: 'POST',
      path: '/dev/schedules/:scheduleId/fire',
      auth: 'messaging',
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
      handler: () => json({ faults: service.faults.list() }),
    },
    {
      method: 'POST',
      path: '/dev/faults',
      auth: 'messaging',
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
      handler: async ({ params }) => {
        await service.faults.remove(params.id ?? '');
        return json({ removed: 1 });
      },
    },
    {
      method: 'POST',
      path: '/dev/workflows/runs/:runId/time-out',
      auth: 'messaging',
      // "Time out now": each wait of the run (waitForEvent, waitForWebhook, invoke) ends as its timeout would.
      handler: async ({ params }) => json({ timedOut: await service.actions.timeOutWaits(params.runId ?? '') }),
    },
  ];
}
