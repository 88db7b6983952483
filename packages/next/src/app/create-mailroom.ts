import type { ReceiverOptions } from '@mailroom/core';
import { bindReceiver, type AdapterHandlers } from '@mailroom/core/adapter';
import { toRouteHandler, type RouteHandler } from './route-handler';

/** App Router route handlers sharing one set of receiver settings. */
export type NextMailroom = AdapterHandlers<RouteHandler>;

/**
 * Binds receiver settings once for every route of an app. Settings not given fall back to their
 * `MAILROOM_*` variables.
 *
 * @example
 * // lib/mailroom.ts
 * export const mailroom = createMailroom();
 * // app/api/orders/route.ts
 * export const POST = mailroom.destination(orderPlaced, (message) => save(message.body));
 */
export function createMailroom(options: ReceiverOptions = {}): NextMailroom {
  return bindReceiver(options, toRouteHandler);
}
