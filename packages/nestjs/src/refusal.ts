// A delivery the guard refuses: the exception it throws, carrying the core pipeline's answer, and the
// exception filter that writes that answer (and answers handler failures as the service expects).
import { MAILROOM_RECEIVER } from './providers';
import { requestState, type NestRequest } from './request-state';
import type { InboundRequest, OutboundResponse, Receiver } from '@mailroom/core';
import { pipelineOf, writeOutbound } from '@mailroom/core/adapter';
import { Catch, HttpException, Inject, type ArgumentsHost } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import type { ServerResponse } from 'node:http';

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
function isMailroomRefusal(value: unknown): value is MailroomRefusal {
  return typeof value === 'object' && value !== null && (value as { [REFUSAL]?: boolean })[REFUSAL] === true;
}

/**
 * Answers failures on Mailroom routes the way the service understands them: a refusal from
 * `SignatureGuard` exactly as the core chose it, `NonRetryableError` with 489 and
 * `<Prefix>-NonRetryable-Error: true` (straight to the DLQ), `RetryAfterError` with its status and
 * `Retry-After`, anything else 500 so the service retries. An `HttpException` you throw yourself
 * keeps Nest's usual answer: you chose that status.
 *
 * Applied for you by `@OnMessage`, `@OnCallback` and `@OnFailureCallback`.
 *
 * @example
 * @Post('raw')
 * @UseGuards(SignatureGuard)
 * @UseFilters(MailroomExceptionFilter)
 * handle(@ReceivedMessage() message: ReceivedMessage) { ... }
 */
@Catch()
export class MailroomExceptionFilter extends BaseExceptionFilter {
  constructor(@Inject(MAILROOM_RECEIVER) private readonly receiver: Receiver) {
    super();
  }

  override catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') return super.catch(exception, host);
    const http = host.switchToHttp();
    const response = http.getResponse<ServerResponse>();
    if (isMailroomRefusal(exception)) return writeOutbound(response, exception.outbound);
    if (exception instanceof HttpException) return super.catch(exception, host);
    const request = http.getRequest<NestRequest>();
    // The guard's copy when there is one, so the report shows what the pipeline verified.
    const inbound: InboundRequest = requestState(request).inbound ?? {
      method: request.method ?? 'POST',
      url: request.originalUrl ?? request.url,
      headers: request.headers,
      rawBody: new Uint8Array(0),
    };
    writeOutbound(response, pipelineOf(this.receiver).errorResponse(exception, inbound));
  }
}
