import { standaloneHandlers } from '@mailroom/core/adapter';
import { toRouteHandler } from './route-handler';

const handlers = standaloneHandlers(toRouteHandler);

/**
 * An App Router route handler for one typed destination.
 *
 * @example
 * // app/api/orders/route.ts
 * export const POST = destination(orderPlaced, async (message) => orders.save(message.body));
 */
export const destination = handlers.destination;

/**
 * An App Router route handler for callbacks, called after every delivery attempt.
 *
 * @example
 * export const POST = callback((m) => log(m.status, m.isFinalAttempt), { source: orderPlaced });
 */
export const callback = handlers.callback;

/**
 * An App Router route handler for failure callbacks, called once a message failed for good.
 *
 * @example
 * export const POST = failureCallback((m) => alert(m.dlqId), { source: orderPlaced });
 */
export const failureCallback = handlers.failureCallback;
