import type { InboundRequest } from '@mailroom/core';
import type { IncomingMessage } from 'node:http';

/** The request as Express hands it to Nest: `originalUrl` keeps the global prefix and mount path. */
export type NestRequest = IncomingMessage & { originalUrl?: string };

// `Symbol.for`, not `Symbol()`: the guard and the parameter decorator may come from two copies of
// this package (ESM and CJS builds) and must still find each other's state.
const STATE = Symbol.for('@mailroom/nestjs.request-state');

/** What the guard learned about a request, for the parameter decorator and the exception filter. */
export interface RequestState {
  /** The request as the pipeline saw it, so a handler failure is reported against the same data. */
  inbound?: InboundRequest;
  /** The verified message (`ReceivedMessage`, `CallbackMessage` or `FailureCallbackMessage`). */
  message?: unknown;
  /** Set once the guard has let the request through, so a guard applied twice verifies once. */
  verified?: boolean;
}

type Carrier = object & { [STATE]?: RequestState };

/** The state kept on `request`, created on first use. */
export function requestState(request: object): RequestState {
  const carrier = request as Carrier;
  if (!carrier[STATE]) Object.defineProperty(carrier, STATE, { value: {}, enumerable: false });
  return carrier[STATE]!;
}
