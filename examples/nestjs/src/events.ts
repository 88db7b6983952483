import { Injectable } from '@nestjs/common';

export type AppEvent =
  | { kind: 'order'; orderId: string; total: number; retried: number }
  | { kind: 'callback'; status: number | undefined; isFinalAttempt: boolean; orderId: string | undefined }
  | { kind: 'failure-callback'; dlqId: string | undefined; orderId: string | undefined };

/** What the handlers saw, in memory: enough for a demo and the tests. */
@Injectable()
export class EventLog {
  readonly events: AppEvent[] = [];
}
