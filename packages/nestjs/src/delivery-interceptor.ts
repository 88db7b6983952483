import type { CallbackMessage, IdempotencyOption, MessageTracing, ReceivedMessage } from '@mailroom/core';
import {
  ALREADY_HANDLED,
  ALREADY_HANDLED_HEADER,
  checkTracing,
  guardedDelivery,
  idempotencyGuard,
  tracedDelivery,
  type IdempotencyGuard,
} from '@mailroom/core/adapter';
import { type CallHandler, type ExecutionContext, Inject, Injectable, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { ServerResponse } from 'node:http';
import { from, lastValueFrom, map, type Observable } from 'rxjs';
import { checkRoute, type MailroomRoute, readRouteMetadata } from './metadata';
import { logThroughNest, MAILROOM_MODULE_OPTIONS, type MailroomModuleOptions } from './providers';
import { requestState } from './request-state';

// Nest runs the controller method itself, so what core's endpoints put around a handler goes around
// it here, after `SignatureGuard` verified the delivery: the consumer span (`tracing`) and the
// idempotency guard (the route's own option wins over the module's; a message already handled is
// answered 2xx without calling the method).

/** What one route's deliveries go through, worked out on its first delivery. */
interface RoutePlan {
  route: MailroomRoute | undefined;
  guard: IdempotencyGuard | undefined;
}

/**
 * Runs a Mailroom route's method in a consumer span when `MailroomModule` has `tracing`, and once per
 * message when the route or the module has an `idempotency` store. Applied for you by `@OnMessage`,
 * `@OnCallback` and `@OnFailureCallback`.
 */
@Injectable()
export class DeliveryInterceptor implements NestInterceptor {
  private readonly plans = new WeakMap<Function, RoutePlan>();
  private readonly tracing: MessageTracing | undefined;

  constructor(
    @Inject(MAILROOM_MODULE_OPTIONS) private readonly options: MailroomModuleOptions,
    @Inject(Reflector) private readonly reflector: Reflector,
  ) {
    this.tracing = checkTracing(options.tracing, 'MailroomModule tracing');
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const { route, guard } = this.planOf(context.getHandler());
    const { tracing } = this;
    if (!guard && !tracing) return next.handle();
    const http = context.switchToHttp();
    const message = requestState(http.getRequest<object>()).message as ReceivedMessage | CallbackMessage | undefined;
    if (message === undefined) return next.handle();
    // A callback's message carries the delivery it came in: that delivery's id is the key.
    const delivery = 'delivery' in message ? message.delivery : message;
    const handle = () => lastValueFrom(next.handle(), { defaultValue: undefined });
    const guarded = guard ? () => guard(guardedDelivery(delivery), handle) : handle;
    const run = tracing
      ? () =>
          tracing.traceDelivery(
            tracedDelivery(
              route?.kind ?? 'message',
              route?.kind === 'message' ? route.definition.name : undefined,
              delivery,
              'delivery' in message ? message : undefined,
            ),
            guarded,
          )
      : guarded;
    // The guard answers at once over a memory store (a value, or a throw for a held claim): as a promise here.
    return from(Promise.resolve().then(run)).pipe(
      map((result) => {
        if (result !== ALREADY_HANDLED) return result;
        http.getResponse<ServerResponse>().setHeader(ALREADY_HANDLED_HEADER, 'true');
        return undefined;
      }),
    );
  }

  private planOf(handler: Function): RoutePlan {
    let plan = this.plans.get(handler);
    if (plan === undefined) {
      const [metadata] = readRouteMetadata(this.reflector, handler);
      const checked = metadata && checkRoute(metadata);
      const route = checked && !('problem' in checked) ? checked : undefined;
      const own = route?.idempotency;
      const option: IdempotencyOption | false | undefined = own !== undefined ? own : this.options.idempotency;
      // What the store refuses beside an answer (a release, a renewal) goes where the receiver reports.
      const report = (error: unknown) => (this.options.onError ?? logThroughNest)(error, { stage: 'store' });
      plan = { route, guard: idempotencyGuard(option, own !== undefined ? 'idempotency' : 'MailroomModule idempotency', report) };
      this.plans.set(handler, plan);
    }
    return plan;
  }
}
