import { standaloneHandlers } from '@mailroom/core/adapter';
import { serveEndpoint, type ExpressOptions } from './serve-endpoint';

const handlers = standaloneHandlers<ReturnType<typeof serveEndpoint>, ExpressOptions>(serveEndpoint);

/**
 * A route handler for one typed destination: verifies the signature over the exact bytes, validates
 * the body with the definition's schema and calls `handler` with the typed message. Keys come from
 * the options or `MAILROOM_CURRENT_SIGNING_KEY` / `MAILROOM_NEXT_SIGNING_KEY`.
 *
 * @example
 * app.post(orderPlaced.path, destination(orderPlaced, async (message) => orders.save(message.body)));
 */
export const destination = handlers.destination;

/**
 * A route handler for callbacks, called after every delivery attempt; `body` and `sourceBody` arrive
 * decoded (bytes, text and schema-checked data).
 *
 * @example
 * app.post('/callbacks', callback((m) => m.isFinalAttempt && metrics.count('final', m.status), { source: orderPlaced }));
 */
export const callback = handlers.callback;

/**
 * A route handler for failure callbacks, called once a message failed for good, with its DLQ id.
 *
 * @example
 * app.post('/failures', failureCallback((m) => alerts.send(`${m.sourceBody.data.orderId} -> DLQ ${m.dlqId}`), { source: orderPlaced }));
 */
export const failureCallback = handlers.failureCallback;
