import { checkRoute, decoratorName, readRouteMetadata, type MailroomRoute } from './metadata';
import { MAILROOM_RECEIVER } from './providers';
import type { InboundRequest, OutboundResponse, Receiver } from '@mailroom/core';
import { readInbound, writeOutbound } from '@mailroom/core/adapter';
import { Catch, HttpException, Inject, Injectable, type ArgumentsHost, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { BaseExceptionFilter, Reflector } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';

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

/**
 * How to fix a Nest app whose body parser ate the bytes the signature covers. Ends the
 * `RawBodyUnavailableError` message the first delivery reports (through Nest's `Logger`).
 */
const NEST_RAW_BODY_HINT =
  'create the app with rawBody: true, e.g. NestFactory.create(AppModule, { rawBody: true }) ' +
  '(in tests: moduleRef.createNestApplication({ rawBody: true })). Parsers added with app.useBodyParser(...) keep ' +
  'the raw body too when rawBody is true; a parser added with app.use(express.json()) does not: pass it ' +
  '{ verify: captureRawBody } from @mailroom/core, or remove it.';

/** The request as Express hands it to Nest: `originalUrl` keeps the global prefix and mount path. */
type NestRequest = IncomingMessage & { originalUrl?: string };

/**
 * Lets a request reach its handler only when it is a genuine delivery: reads the exact body bytes,
 * then runs every check of the core pipeline (method, size, signature, `publicUrl`, parsing, the
 * handler's schema) and keeps the message for `@ReceivedMessage()`. A refused request gets exactly
 * the core's answer (401, 413, 489 with `<Prefix>-NonRetryable-Error`, 500 with a fix-it message)
 * through `MailroomExceptionFilter`.
 *
 * Applied for you by `@OnMessage`, `@OnCallback` and `@OnFailureCallback`; use it alone to verify
 * a route whose body needs no schema, together with `MailroomExceptionFilter` (without the filter,
 * Nest's default one keeps the status but drops headers such as `<Prefix>-NonRetryable-Error`).
 *
 * @example
 * @Post('raw')
 * @UseGuards(SignatureGuard)
 * @UseFilters(MailroomExceptionFilter)
 * handle(@ReceivedMessage() message: ReceivedMessage) { ... }
 */
@Injectable()
export class SignatureGuard implements CanActivate {
  constructor(
    @Inject(MAILROOM_RECEIVER) private readonly receiver: Receiver,
    @Inject(Reflector) private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') {
      throw new Error(`SignatureGuard guards HTTP routes only; it was applied to a "${context.getType()}" handler.`);
    }
    const request = context.switchToHttp().getRequest<NestRequest>();
    const state = requestState(request);
    if (state.verified) return true;
    const route = this.routeOf(context.getHandler());
    const inbound = await this.read(request);
    state.inbound = inbound;
    state.message = await this.verify(route, inbound);
    state.verified = true;
    return true;
  }

  private async read(request: NestRequest): Promise<InboundRequest> {
    const url = request.originalUrl ?? request.url;
    try {
      return await readInbound(request, { maxBodyBytes: this.receiver.maxBodyBytes, url, consumedHint: NEST_RAW_BODY_HINT });
    } catch (error) {
      const seen: InboundRequest = { method: request.method ?? 'POST', url, headers: request.headers, rawBody: new Uint8Array(0) };
      throw new MailroomRefusal(this.receiver.errorResponse(error, seen), error);
    }
  }

  private async verify(route: MailroomRoute | undefined, inbound: InboundRequest): Promise<unknown> {
    try {
      if (route === undefined) return await this.receiver.receive(inbound);
      if (route.kind === 'message') return await this.receiver.receive(inbound, route.definition.schema);
      if (route.kind === 'callback') return await this.receiver.receiveCallback(inbound, route.options);
      return await this.receiver.receiveFailureCallback(inbound, route.options);
    } catch (error) {
      throw new MailroomRefusal(this.receiver.errorResponse(error, inbound), error);
    }
  }

  private routeOf(handler: Function): MailroomRoute | undefined {
    const found = readRouteMetadata(this.reflector, handler);
    if (found.length === 0) return undefined;
    if (found.length > 1) {
      throw new Error(
        `${handler.name} carries ${found.map((meta) => decoratorName(meta.kind)).join(' and ')}; a route receives one kind of message.`,
      );
    }
    const checked = checkRoute(found[0]!);
    if ('problem' in checked) throw new Error(`${handler.name}: ${checked.problem}.`);
    return checked;
  }
}
