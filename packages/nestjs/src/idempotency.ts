import type { IdempotencyOption, ReceivedMessage } from '@mailroom/core';
import { ALREADY_HANDLED, ALREADY_HANDLED_HEADER, guardedDelivery, idempotencyGuard, type IdempotencyGuard } from '@mailroom/core/adapter';
import { type CallHandler, type ExecutionContext, Inject, Injectable, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { ServerResponse } from 'node:http';
import { from, lastValueFrom, map, type Observable } from 'rxjs';
import { checkRoute, readRouteMetadata } from './metadata';
import { MAILROOM_MODULE_OPTIONS, type MailroomModuleOptions } from './providers';
import { requestState } from './request-state';

// Exactly-once handling for Nest routes: Nest runs the controller method itself, so core's guard goes
// around it here, after `SignatureGuard` verified the delivery. The route's own `idempotency` option
// wins over the module's; a message already handled is answered 2xx without calling the method.

/**
 * Runs a Mailroom route's method once per message when the route or `MailroomModule` has an
 * `idempotency` store. Applied for you by `@OnMessage`, `@OnCallback` and `@OnFailureCallback`.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly guards = new WeakMap<Function, IdempotencyGuard | null>();

  constructor(
    @Inject(MAILROOM_MODULE_OPTIONS) private readonly options: MailroomModuleOptions,
    @Inject(Reflector) private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const guard = context.getType() === 'http' ? this.guardOf(context.getHandler()) : undefined;
    if (!guard) return next.handle();
    const http = context.switchToHttp();
    const message = requestState(http.getRequest<object>()).message as ReceivedMessage | { delivery: ReceivedMessage } | undefined;
    if (message === undefined) return next.handle();
    // A callback's message carries the delivery it came in: that delivery's id is the key.
    const delivery = 'delivery' in message ? message.delivery : message;
    // The guard answers at once over a memory store (a value, or a throw for a held claim): as a promise here.
    const guarded = Promise.resolve().then(() =>
      guard(guardedDelivery(delivery), () => lastValueFrom(next.handle(), { defaultValue: undefined })),
    );
    return from(guarded).pipe(
      map((result) => {
        if (result !== ALREADY_HANDLED) return result;
        http.getResponse<ServerResponse>().setHeader(ALREADY_HANDLED_HEADER, 'true');
        return undefined;
      }),
    );
  }

  private guardOf(handler: Function): IdempotencyGuard | undefined {
    let guard = this.guards.get(handler);
    if (guard === undefined) {
      const [metadata] = readRouteMetadata(this.reflector, handler);
      const route = metadata && checkRoute(metadata);
      const own = route && !('problem' in route) ? route.idempotency : undefined;
      const option: IdempotencyOption | false | undefined = own !== undefined ? own : this.options.idempotency;
      guard = idempotencyGuard(option, own !== undefined ? 'idempotency' : 'MailroomModule idempotency') ?? null;
      this.guards.set(handler, guard);
    }
    return guard ?? undefined;
  }
}
