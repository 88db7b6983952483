import { SignatureGuard } from './guard';
import { DeliveryInterceptor } from './delivery-interceptor';
import { MailroomExceptionFilter } from './refusal';
import { requestState } from './request-state';
import {
  ROUTE_METADATA_KEYS,
  recordReceivedMessageParam,
  type ResponseSchema,
  type RouteKind,
  type RouteMetadata,
  type SourceSchema,
  NEST_METADATA_KEYS,
} from './metadata';
import type { CallbackOptions, DestinationDefinition, EndpointOptions, ReceivedMessage as CoreReceivedMessage } from '@mailroom/core';
import {
  HttpCode,
  SetMetadata,
  UseFilters,
  UseGuards,
  UseInterceptors,
  applyDecorators,
  createParamDecorator,
  type ExecutionContext,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';

/** The property of the message to inject instead of the whole message, e.g. `'body'`. */
export type ReceivedMessageKey = keyof CoreReceivedMessage;

/** Looks up what `SignatureGuard` verified and kept on the request. */
function receivedMessageFactory(key: ReceivedMessageKey | undefined, context: ExecutionContext): unknown {
  const state = requestState(context.switchToHttp().getRequest<object>());
  if (!state.verified) {
    throw new Error(
      `@ReceivedMessage() has no message: ${context.getClass().name}.${context.getHandler().name} is not guarded by SignatureGuard. ` +
        'Mark it with @OnMessage(definition), @OnCallback() or @OnFailureCallback().',
    );
  }
  return key === undefined ? state.message : (state.message as Record<string, unknown>)[key];
}

/**
 * Injects the verified message of a Mailroom route: `ReceivedMessage<T>` on `@OnMessage` routes,
 * `CallbackMessage` / `FailureCallbackMessage` on callback routes. Pass a key to inject one field.
 *
 * @example
 * @Post(orderPlaced.path)
 * @OnMessage(orderPlaced)
 * placed(@ReceivedMessage() message: ReceivedMessage<BodyOf<typeof orderPlaced>>) {
 *   return { id: message.body.orderId, attempt: message.retried };
 * }
 */
export const ReceivedMessage: (key?: ReceivedMessageKey) => ParameterDecorator = createParamDecorator(receivedMessageFactory, [
  recordReceivedMessageParam,
]);

/** A delivered message as a handler sees it; the same type as `ReceivedMessage` of `@mailroom/core`. */
export type ReceivedMessage<T = unknown> = CoreReceivedMessage<T>;

/**
 * Marks a controller route as the receiver of one typed destination: only signed deliveries whose
 * body passes the definition's schema reach it, and `@ReceivedMessage()` gives the message with the
 * schema's output as `body`. A body that fails the schema answers 489 (straight to the DLQ) without
 * calling the method. Answers 200 unless the method sets `@HttpCode`.
 *
 * @example
 * @Controller()
 * export class OrdersController {
 *   @Post(orderPlaced.path)
 *   @OnMessage(orderPlaced)
 *   placed(@ReceivedMessage() message: ReceivedMessage<BodyOf<typeof orderPlaced>>) {
 *     return this.orders.save(message.body);
 *   }
 * }
 */
export function OnMessage(definition: DestinationDefinition, options?: EndpointOptions): MethodDecorator {
  // biome-ignore lint/complexity/noArguments: tells `@OnX()` from `@OnX(undefined)`, to say which mistake it is
  return mailroomRoute('message', arguments.length, definition, options);
}

/**
 * Marks a controller route as a callback URL, called by the service after every delivery attempt.
 * `@ReceivedMessage()` gives the decoded `CallbackMessage`: `body` (the destination's answer) and
 * `sourceBody` (the message) as bytes, text and data, checked with `response` / `source` when given.
 *
 * @example
 * @Post('callbacks')
 * @OnCallback({ source: orderPlaced })
 * delivered(@ReceivedMessage() message: CallbackMessage<BodyOf<typeof orderPlaced>>) {
 *   if (message.isFinalAttempt) this.metrics.count('final', message.status);
 * }
 */
export function OnCallback(options?: CallbackOptions<SourceSchema, ResponseSchema>): MethodDecorator {
  // biome-ignore lint/complexity/noArguments: tells `@OnX()` from `@OnX(undefined)`, to say which mistake it is
  return mailroomRoute('callback', arguments.length, options);
}

/**
 * Marks a controller route as a failure-callback URL, called once delivery failed for good.
 * `@ReceivedMessage()` gives the decoded `FailureCallbackMessage` (with `dlqId`).
 *
 * @example
 * @Post('failures')
 * @OnFailureCallback({ source: orderPlaced })
 * failed(@ReceivedMessage() message: FailureCallbackMessage<BodyOf<typeof orderPlaced>>) {
 *   this.alerts.raise(message.dlqId, message.sourceBody.valid ? message.sourceBody.data.orderId : message.sourceBody.text);
 * }
 */
export function OnFailureCallback(options?: CallbackOptions<SourceSchema, ResponseSchema>): MethodDecorator {
  // biome-ignore lint/complexity/noArguments: tells `@OnX()` from `@OnX(undefined)`, to say which mistake it is
  return mailroomRoute('failureCallback', arguments.length, options);
}

function mailroomRoute(kind: RouteKind, argumentCount: number, argument: unknown, options?: unknown): MethodDecorator {
  // Recorded unchecked: the start-up checks report every malformed route at once, with class and
  // method names, instead of the first one crashing the import.
  const metadata: RouteMetadata = { kind, argument, argumentCount, ...(options !== undefined ? { options } : {}) };
  return applyDecorators(
    SetMetadata(ROUTE_METADATA_KEYS[kind], metadata),
    UseGuards(SignatureGuard),
    UseInterceptors(DeliveryInterceptor),
    UseFilters(MailroomExceptionFilter),
    defaultHttpCode(200),
  );
}

const reflector = new Reflector();

/**
 * Nest answers POST with 201; the service only needs a 2xx, and 200 is what the other adapters
 * answer. Set only when no `@HttpCode` is there yet; one applied after this one wins anyway.
 */
function defaultHttpCode(status: number): MethodDecorator {
  return (target, key, descriptor) => {
    if (!descriptor || reflector.get(NEST_METADATA_KEYS.httpCode, descriptor.value as Function) !== undefined) return;
    HttpCode(status)(target, key, descriptor);
  };
}
