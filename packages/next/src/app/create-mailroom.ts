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
import { toRouteHandler, type RouteHandler } from './route-handler';

/** App Router route handlers sharing one set of receiver settings. */
export interface NextMailroom {
  /**
   * A route handler for a typed destination.
   *
   * @example
   * export const POST = mailroom.destination(orderPlaced, async (message) => save(message.body));
   */
  destination<D extends DestinationDefinition>(definition: D, handler: MessageHandler<BodyOf<D>>): RouteHandler;
  /**
   * A route handler for callbacks, called by the service after every delivery attempt.
   *
   * @example
   * export const POST = mailroom.callback((m) => log(m.status, m.sourceBody.data), { source: orderPlaced });
   */
  callback<S extends SourceSchema = undefined, R extends ResponseSchema = undefined>(
    handler: (message: CallbackMessage<SchemaOutput<S>, SchemaOutput<R>>) => unknown,
    options?: CallbackOptions<S, R>,
  ): RouteHandler;
  /**
   * A route handler for failure callbacks, called once delivery failed for good.
   *
   * @example
   * export const POST = mailroom.failureCallback((m) => alert(m.dlqId), { source: orderPlaced });
   */
  failureCallback<S extends SourceSchema = undefined, R extends ResponseSchema = undefined>(
    handler: (message: FailureCallbackMessage<SchemaOutput<S>, SchemaOutput<R>>) => unknown,
    options?: CallbackOptions<S, R>,
  ): RouteHandler;
  /** The core receiver behind these handlers, for custom glue. */
  readonly receiver: Receiver;
}

/**
 * Binds receiver settings (signing keys, header prefix, `publicUrl`, body limit) once for all route
 * handlers of an app. Settings not given fall back to their `MAILROOM_*` variables.
 *
 * @example
 * // lib/mailroom.ts
 * export const mailroom = createMailroom({ publicUrl: 'https://app.example.com' });
 * // app/api/orders/route.ts
 * export const POST = mailroom.destination(orderPlaced, (message) => save(message.body));
 */
export function createMailroom(options: ReceiverOptions = {}): NextMailroom {
  // One receiver per module load: keys are resolved and checked once, not on every request.
  const receiver = createReceiver(options);
  return {
    destination: (definition, handler) => toRouteHandler(receiver.destination(definition, handler)),
    callback: (handler, callbackOptions) => toRouteHandler(receiver.callback(handler, callbackOptions)),
    failureCallback: (handler, callbackOptions) => toRouteHandler(receiver.failureCallback(handler, callbackOptions)),
    receiver,
  };
}
