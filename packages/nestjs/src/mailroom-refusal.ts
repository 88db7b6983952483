import type { OutboundResponse } from '@mailroom/core';
import { HttpException } from '@nestjs/common';

const REFUSAL = Symbol.for('@mailroom/nestjs.refusal');

/**
 * What the guard throws when a request must not reach the handler: carries the exact answer the core
 * pipeline chose (status, headers such as `<Prefix>-NonRetryable-Error`, body), which
 * `MailroomExceptionFilter` writes as it is. An `HttpException` with the same status and body, so
 * Nest's default filter still answers with the right status where that filter is not applied.
 *
 * A guard returning `false` would give 403, which the service would retry as if the endpoint were
 * broken; throwing keeps 401 for a bad signature and 489 for a message that can never succeed.
 */
export class MailroomRefusal extends HttpException {
  readonly outbound: OutboundResponse;

  constructor(outbound: OutboundResponse, cause: unknown) {
    super(outbound.body, outbound.status, { cause });
    this.outbound = outbound;
    Object.defineProperty(this, REFUSAL, { value: true });
  }
}

/** Brand check rather than `instanceof`, which two copies of this package would defeat. */
export function isMailroomRefusal(value: unknown): value is MailroomRefusal {
  return typeof value === 'object' && value !== null && (value as { [REFUSAL]?: boolean })[REFUSAL] === true;
}
