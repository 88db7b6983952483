import { checkRoute, decoratorName, readRouteMetadata, type MailroomRoute } from './metadata';
import { MAILROOM_RECEIVER } from './providers';
import { RawBodyUnavailableError, type InboundRequest, type OutboundResponse, type Receiver } from '@mailroom/core';
import { readInbound, writeOutbound } from '@mailroom/core/adapter';
import { Catch, HttpException, Inject, Injectable, type ArgumentsHost, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { BaseExceptionFilter, Reflector } from '@nestjs/core';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

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
 * `RawBodyUnavailableError` message at request time and the start-up error, so both say the same.
 */
export const NEST_RAW_BODY_HINT =
  'create the app with rawBody: true, e.g. NestFactory.create(AppModule, { rawBody: true }) ' +
  '(in tests: moduleRef.createNestApplication({ rawBody: true })). Parsers added with app.useBodyParser(...) keep ' +
  'the raw body too when rawBody is true; a parser added with app.use(express.json()) does not: pass it ' +
  '{ verify: captureRawBody } from @mailroom/core, or remove it.';

/** body-parser names its middleware after the parser; Nest itself relies on these names. */
const BODY_PARSER_NAMES = new Set(['jsonParser', 'urlencodedParser', 'textParser', 'rawParser']);

/** One representative body per content type a global parser commonly consumes. */
const PROBES = [
  { contentType: 'application/json', body: '{"mailroom":"probe"}' },
  { contentType: 'application/x-www-form-urlencoded', body: 'mailroom=probe' },
  { contentType: 'text/plain', body: 'mailroom probe' },
] as const;

/** How long one parser may take on a 20-byte in-memory body before the probe gives up on it. */
const PARSER_TIMEOUT_MS = 2_000;

type Middleware = (req: unknown, res: unknown, next: (error?: unknown) => void) => void;
interface Layer {
  handle?: unknown;
  name?: string;
  /** router 2 (Express 5): mounted at `/` with `end: false`, i.e. runs for every path. */
  slash?: boolean;
  /** Express 4's flag for the same. */
  regexp?: { fast_slash?: boolean };
}

/** What the probe found: the content types whose bytes no Mailroom route could get back. */
export interface RawBodyProbeResult {
  /** Content types a root-mounted parser consumes without keeping `req.rawBody`. */
  lost: string[];
  /** Parsers that did not finish on a probe body (never expected; reported, not guessed at). */
  inconclusive: string[];
}

/**
 * Whether the Express app's global body parsers keep the raw body. Nest registers its JSON and
 * urlencoded parsers (with `verify` keeping `req.rawBody` only when the app was created with
 * `rawBody: true`) before `onModuleInit`, so this sees exactly the parsers requests will meet.
 *
 * The setting itself is not readable from a module (Nest keeps it inside the application object),
 * and the `verify` callback is hidden in a closure, so the probe asks the parsers instead: it runs
 * the root-mounted body-parser middleware in order on an in-memory request per content type, then
 * asks `readInbound` (the same code every request goes through) whether the bytes are still
 * available. No parsers at all (`bodyParser: false`) is fine: the stream is then read directly.
 */
export async function probeRawBody(app: unknown): Promise<RawBodyProbeResult> {
  const parsers = rootBodyParsers(app);
  const result: RawBodyProbeResult = { lost: [], inconclusive: [] };
  if (parsers.length === 0) return result;
  for (const probe of PROBES) {
    const request = probeRequest(probe.contentType, probe.body);
    let finished = true;
    for (const parser of parsers) {
      const outcome = await runParser(parser, request);
      if (outcome === 'timeout') {
        result.inconclusive.push(`${parser.name || 'body parser'} (${probe.contentType})`);
        finished = false;
        break;
      }
    }
    if (!finished) continue;
    try {
      await readInbound(request as never, { maxBodyBytes: Number.POSITIVE_INFINITY });
    } catch (error) {
      if (error instanceof RawBodyUnavailableError) result.lost.push(probe.contentType);
    }
  }
  return result;
}

function rootBodyParsers(app: unknown): Middleware[] {
  const candidate = app as { router?: { stack?: unknown }; _router?: { stack?: unknown } } | null;
  // Express 5 creates `app.router` on first access; Nest reads it the same way.
  const stack = candidate?.router?.stack ?? candidate?._router?.stack;
  if (!Array.isArray(stack)) return [];
  return (stack as Layer[])
    .filter((layer) => typeof layer?.handle === 'function' && BODY_PARSER_NAMES.has((layer.handle as Function).name))
    .filter((layer) => layer.slash === true || layer.regexp?.fast_slash === true)
    .map((layer) => layer.handle as Middleware);
}

/**
 * A bare `Readable` with the fields body-parser reads. Not an `IncomingMessage`: that needs a socket,
 * and `on-finished` would then consult it. Without `complete`, body-parser treats it as unread.
 */
function probeRequest(contentType: string, body: string): Readable & Record<string, unknown> {
  const bytes = Buffer.from(body, 'utf8');
  const request = Readable.from([bytes], { objectMode: false }) as Readable & Record<string, unknown>;
  request.headers = { 'content-type': contentType, 'content-length': String(bytes.byteLength) };
  request.method = 'POST';
  request.url = '/';
  return request;
}

function runParser(parser: Middleware, request: unknown): Promise<'done' | 'timeout'> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('timeout'), PARSER_TIMEOUT_MS);
    timer.unref?.();
    const done = (): void => {
      clearTimeout(timer);
      resolve('done');
    };
    try {
      // A parser's own error (it rejected the probe) still leaves the question answerable.
      parser(request, {}, done);
    } catch {
      done();
    }
  });
}

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
