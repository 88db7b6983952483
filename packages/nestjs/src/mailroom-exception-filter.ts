import type { IncomingMessage, ServerResponse } from 'node:http';
import type { InboundRequest, Receiver } from '@mailroom/core';
import { writeOutbound } from '@mailroom/core/adapter';
import { Catch, HttpException, Inject, type ArgumentsHost } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import { isMailroomRefusal } from './mailroom-refusal';
import { requestState } from './request-state';
import { MAILROOM_RECEIVER } from './tokens';

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
    const request = http.getRequest<IncomingMessage & { originalUrl?: string }>();
    // The guard's copy when there is one, so the report shows what the pipeline verified.
    const inbound: InboundRequest = requestState(request).inbound ?? {
      method: request.method ?? 'POST',
      url: request.originalUrl ?? request.url,
      headers: request.headers,
      rawBody: new Uint8Array(0),
    };
    writeOutbound(response, this.receiver.errorResponse(exception, inbound));
  }
}
