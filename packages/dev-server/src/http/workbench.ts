import type { Service } from '../service';
import { json, type Route } from './router';

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
  ];
}
