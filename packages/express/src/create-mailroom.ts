import { bindReceiver, type AdapterHandlers } from '@mailroom/core/adapter';
import type { MailroomRequestHandler } from './request-handler';
import { serveEndpoint, type ExpressOptions } from './serve-endpoint';

/** `destination`, `callback` and `failureCallback` route handlers sharing one set of receiver settings. */
export type ExpressMailroom = AdapterHandlers<MailroomRequestHandler>;

/**
 * Binds receiver settings (signing keys, header prefix, `publicUrl`, body limit, `forwardErrors`) once for every
 * handler of an app. Settings not given fall back to their `MAILROOM_*` variables.
 *
 * @example
 * import express from 'express';
 * import { createMailroom } from '@mailroom/express';
 *
 * const mailroom = createMailroom({ publicUrl: 'https://app.example.com' });
 * const app = express();
 * app.post(orderPlaced.path, mailroom.destination(orderPlaced, (message) => save(message.body)));
 * app.post('/callbacks', mailroom.callback((message) => log(message.status), { source: orderPlaced }));
 * app.post('/failures', mailroom.failureCallback((message) => alert(message.dlqId)));
 */
export function createMailroom(options: ExpressOptions = {}): ExpressMailroom {
  return bindReceiver(options, serveEndpoint);
}
