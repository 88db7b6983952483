import { standaloneHandlers } from '@mailroom/core/adapter';
import { serveEndpoint } from './serve-endpoint';

const handlers = standaloneHandlers(serveEndpoint);

/**
 * A Pages Router API handler for one typed destination.
 *
 * @example
 * // pages/api/orders.ts
 * export const config = { api: { bodyParser: false } };
 * export default destination(orderPlaced, async (message) => orders.save(message.body));
 */
export const destination = handlers.destination;

/**
 * A Pages Router API handler for callbacks (with `bodyParser: false` in the route file).
 *
 * @example
 * export default callback((m) => log(m.status), { source: orderPlaced });
 */
export const callback = handlers.callback;

/**
 * A Pages Router API handler for failure callbacks (with `bodyParser: false` in the route file).
 *
 * @example
 * export default failureCallback((m) => alert(m.dlqId), { source: orderPlaced });
 */
export const failureCallback = handlers.failureCallback;
