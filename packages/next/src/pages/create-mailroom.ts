import type { ReceiverOptions } from '@mailroom/core';
import { bindReceiver, type AdapterHandlers } from '@mailroom/core/adapter';
import type { ApiHandler } from './api-handler';
import { serveEndpoint } from './serve-endpoint';

/** Pages Router API handlers sharing one set of receiver settings. */
export type PagesMailroom = AdapterHandlers<ApiHandler>;

/**
 * Binds receiver settings once for every API route of an app. Each route file must also turn Next's
 * body parser off, which a library cannot do for it.
 *
 * @example
 * // pages/api/orders.ts
 * export const config = { api: { bodyParser: false } };
 * export default mailroom.destination(orderPlaced, (message) => save(message.body));
 */
export function createMailroom(options: ReceiverOptions = {}): PagesMailroom {
  return bindReceiver(options, serveEndpoint);
}
