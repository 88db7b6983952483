import {
  createReceiver,
  type BodyOf,
  type CallbackMessage,
  type CallbackOptions,
  type DestinationDefinition,
  type FailureCallbackMessage,
  type MessageHandler,
  type Receiver,
  type ReceiverOptions,
  type SchemaOutput,
} from '@mailroom/core';
import type { ResponseSchema, SourceSchema } from '../options';
import type { ApiHandler } from './api-handler';
import { serveEndpoint } from './serve-endpoint';

/** Pages Router API handlers sharing one set of receiver settings. */
export interface PagesMailroom {
  /**
   * An API route handler for a typed destination.
   *
   * @example
   * export const config = { api: { bodyParser: false } };
   * export default mailroom.destination(orderPlaced, async (message) => save(message.body));
   */
  destination<D extends DestinationDefinition>(definition: D, handler: MessageHandler<BodyOf<D>>): ApiHandler;
  /**
   * An API route handler for callbacks, called by the service after every delivery attempt.
   *
   * @example
   * export const config = { api: { bodyParser: false } };
   * export default mailroom.callback((m) => log(m.status), { source: orderPlaced });
   */
  callback<S extends SourceSchema = undefined, R extends ResponseSchema = undefined>(
    handler: (message: CallbackMessage<SchemaOutput<S>, SchemaOutput<R>>) => unknown,
    options?: CallbackOptions<S, R>,
  ): ApiHandler;
  /**
   * An API route handler for failure callbacks, called once delivery failed for good.
   *
   * @example
   * export const config = { api: { bodyParser: false } };
   * export default mailroom.failureCallback((m) => alert(m.dlqId), { source: orderPlaced });
   */
  failureCallback<S extends SourceSchema = undefined, R extends ResponseSchema = undefined>(
    handler: (message: FailureCallbackMessage<SchemaOutput<S>, SchemaOutput<R>>) => unknown,
    options?: CallbackOptions<S, R>,
  ): ApiHandler;
  /** The core receiver behind these handlers, for custom glue. */
  readonly receiver: Receiver;
}

/**
 * Binds receiver settings (signing keys, header prefix, `publicUrl`, body limit) once for all Pages
 * Router API routes of an app. Settings not given fall back to their `MAILROOM_*` variables.
 *
 * @example
 * // lib/mailroom.ts
 * import { createMailroom } from '@mailroom/next/pages';
 * export const mailroom = createMailroom({ publicUrl: 'https://app.example.com' });
 * // pages/api/orders.ts
 * export const config = { api: { bodyParser: false } };
 * export default mailroom.destination(orderPlaced, (message) => save(message.body));
 */
export function createMailroom(options: ReceiverOptions = {}): PagesMailroom {
  // One receiver per module load: keys are resolved and checked once, not on every request.
  const receiver = createReceiver(options);
  return {
    destination: (definition, handler) => serveEndpoint(receiver.destination(definition, handler)),
    callback: (handler, callbackOptions) => serveEndpoint(receiver.callback(handler, callbackOptions)),
    failureCallback: (handler, callbackOptions) => serveEndpoint(receiver.failureCallback(handler, callbackOptions)),
    receiver,
  };
}
