import { checkRoute, decoratorName, readRouteMetadata, type MailroomRoute } from './metadata';
import { MAILROOM_RECEIVER } from './providers';
import type { InboundRequest, Receiver } from '@mailroom/core';
import { pipelineOf, readInbound } from '@mailroom/core/adapter';
import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { MailroomRefusal } from './refusal';
import { requestState, type NestRequest } from './request-state';
import { Reflector } from '@nestjs/core';

/**
 * How to fix a Nest app whose body parser ate the bytes the signature covers. Ends the
 * `RawBodyUnavailableError` message the first delivery reports (through Nest's `Logger`).
 */
const NEST_RAW_BODY_HINT =
  'create the app with rawBody: true, e.g. NestFactory.create(AppModule, { rawBody: true }) ' +
  '(in tests: moduleRef.createNestApplication({ rawBody: true })). Parsers added with app.useBodyParser(...) keep ' +
  'the raw body too when rawBody is true; a parser added with app.use(express.json()) does not: pass it ' +
  '{ verify: captureRawBody } from @mailroom/core, or remove it.';

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
      return await readInbound(request, { maxBodyBytes: pipelineOf(this.receiver).maxBodyBytes, url, consumedHint: NEST_RAW_BODY_HINT });
    } catch (error) {
      const seen: InboundRequest = { method: request.method ?? 'POST', url, headers: request.headers, rawBody: new Uint8Array(0) };
      throw new MailroomRefusal(pipelineOf(this.receiver).errorResponse(error, seen), error);
    }
  }

  private async verify(route: MailroomRoute | undefined, inbound: InboundRequest): Promise<unknown> {
    try {
      if (route === undefined) return await pipelineOf(this.receiver).receive(inbound);
      if (route.kind === 'message') return await pipelineOf(this.receiver).receive(inbound, route.definition.schema);
      if (route.kind === 'callback') return await pipelineOf(this.receiver).receiveCallback(inbound, route.options);
      return await pipelineOf(this.receiver).receiveFailureCallback(inbound, route.options);
    } catch (error) {
      throw new MailroomRefusal(pipelineOf(this.receiver).errorResponse(error, inbound), error);
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
