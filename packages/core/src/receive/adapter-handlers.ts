import type { BodyOf, DestinationDefinition } from '../contract';
import type { CallbackMessage, CallbackOptions, FailureCallbackMessage, SchemaOutput } from './messages';
import { createReceiver, type Endpoint, type MessageHandler, type Receiver } from './create-receiver';
import type { ReceiverOptions, CallbackHandlerOptions, ResponseSchema, SourceSchema } from './options';

/**
 * The three handler factories every adapter offers, returning the adapter's own handler type `H`
 * (an Express `RequestHandler`, a Next.js route handler, ...), over one shared receiver.
 */
export interface AdapterHandlers<H> {
  /** A typed destination: the handler gets the definition's schema output as `message.body`. */
  destination<D extends DestinationDefinition>(definition: D, handler: MessageHandler<BodyOf<D>>): H;
  /** A callback, called by the service after every delivery attempt; bodies arrive decoded. */
  callback<S extends SourceSchema = undefined, R extends ResponseSchema = undefined>(
    handler: (message: CallbackMessage<SchemaOutput<S>, SchemaOutput<R>>) => unknown,
    options?: CallbackOptions<S, R>,
  ): H;
  /** A failure callback, called once delivery failed for good, with the DLQ id. */
  failureCallback<S extends SourceSchema = undefined, R extends ResponseSchema = undefined>(
    handler: (message: FailureCallbackMessage<SchemaOutput<S>, SchemaOutput<R>>) => unknown,
    options?: CallbackOptions<S, R>,
  ): H;
  /** The core receiver behind them, for custom glue. */
  readonly receiver: Receiver;
}

/** The same factories as one-call functions: receiver settings (and callback schemas) come last. */
export interface StandaloneHandlers<H, O extends ReceiverOptions = ReceiverOptions> {
  destination<D extends DestinationDefinition>(definition: D, handler: MessageHandler<BodyOf<D>>, options?: O): H;
  callback<S extends SourceSchema = undefined, R extends ResponseSchema = undefined>(
    handler: (message: CallbackMessage<SchemaOutput<S>, SchemaOutput<R>>) => unknown,
    options?: O & CallbackHandlerOptions<S, R>,
  ): H;
  failureCallback<S extends SourceSchema = undefined, R extends ResponseSchema = undefined>(
    handler: (message: FailureCallbackMessage<SchemaOutput<S>, SchemaOutput<R>>) => unknown,
    options?: O & CallbackHandlerOptions<S, R>,
  ): H;
}

/**
 * Builds an adapter's `createMailroom(options)`: one receiver (keys resolved once, at definition time,
 * not per request), and each endpoint handed to `wrap`, the only framework-specific part.
 *
 * @example
 * export const createMailroom = (options?: ReceiverOptions) => bindReceiver(options, (endpoint) => endpoint.fetch);
 */
export function bindReceiver<H, O extends ReceiverOptions = ReceiverOptions>(
  options: O | undefined,
  wrap: (endpoint: Endpoint, options: O) => H,
): AdapterHandlers<H> {
  const receiver = createReceiver(options);
  const settings = (options ?? {}) as O;
  return {
    destination: (definition, handler) => wrap(receiver.destination(definition, handler), settings),
    callback: (handler, callbackOptions) => wrap(receiver.callback(handler, callbackOptions), settings),
    failureCallback: (handler, callbackOptions) => wrap(receiver.failureCallback(handler, callbackOptions), settings),
    receiver,
  };
}

/**
 * Builds an adapter's one-call `destination` / `callback` / `failureCallback`, each with its own
 * receiver settings.
 */
export function standaloneHandlers<H, O extends ReceiverOptions = ReceiverOptions>(
  wrap: (endpoint: Endpoint, options: O) => H,
): StandaloneHandlers<H, O> {
  return {
    destination: (definition, handler, options) => bindReceiver(options, wrap).destination(definition, handler),
    callback: (handler, options) => {
      const { source, response, ...receiverOptions } = options ?? ({} as NonNullable<typeof options>);
      return bindReceiver(receiverOptions as unknown as O, wrap).callback(handler, { source, response });
    },
    failureCallback: (handler, options) => {
      const { source, response, ...receiverOptions } = options ?? ({} as NonNullable<typeof options>);
      return bindReceiver(receiverOptions as unknown as O, wrap).failureCallback(handler, { source, response });
    },
  };
}
