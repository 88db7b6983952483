/** What the routes saw, in memory: enough for a demo and for the tests. */
export type AppEvent =
  | { kind: 'order'; orderId: string; total: number; retried: number }
  | { kind: 'callback'; status: number | undefined; isFinalAttempt: boolean; orderId: string | undefined }
  | { kind: 'failure-callback'; dlqId: string | undefined; orderId: string | undefined };

export const events: AppEvent[] = [];
