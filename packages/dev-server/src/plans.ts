/** The two plan categories a messaging user can have (spec: `type`). */
export type PlanName = 'free' | 'paid';

/** Every limit the spec lists on a messaging user, plus the plan's default retry count. */
export interface PlanLimits {
  readonly type: PlanName;
  /** Retries when an enqueue gives no `<P>-Retries` (spec: free 3, paid 5). */
  readonly defaultRetries: number;
  readonly max_message_size: number;
  readonly max_requests_per_day: number;
  readonly max_requests_per_day_hard: number;
  readonly max_endpoints_per_topic: number;
  readonly max_requests_per_second: number;
  readonly max_dlq_size: number;
  readonly max_retries: number;
  readonly max_topics: number;
  readonly max_schedules: number;
  readonly max_events_size: number;
  readonly max_dlq_retention_time_milis: number;
  readonly max_delay: number;
  readonly max_parallelism: number;
  readonly max_global_parallelism: number;
  readonly max_queues: number;
  readonly max_bandwidth_per_second: number;
  /** Seconds: the longest a destination may take to answer one attempt. */
  readonly timeout: number;
  readonly budget: number;
  readonly prod_pack_enabled: boolean;
}

// Values service-facts states are used as given (free: max_message_size, max_requests_per_day,
// max_retries 999 / paid 20, max_topics, max_queues, max_delay, DLQ retention, timeout; default
// retries 3 / 5 from the spec). The rest are the dev server's own choices, documented in the README.
/** The limits of each plan; `GET /messaging/users` answers them and the enqueue enforces them. */
export const PLANS: Readonly<Record<PlanName, PlanLimits>> = {
  free: {
    type: 'free',
    defaultRetries: 3,
    max_message_size: 1_048_576,
    max_requests_per_day: 1000,
    max_requests_per_day_hard: 1000,
    max_endpoints_per_topic: 100,
    max_requests_per_second: 100,
    max_dlq_size: 1000,
    max_retries: 999,
    max_topics: 1,
    max_schedules: 10,
    max_events_size: 1000,
    max_dlq_retention_time_milis: 259_200_000,
    max_delay: 604_800,
    max_parallelism: 10,
    max_global_parallelism: 10,
    max_queues: 10,
    max_bandwidth_per_second: 10_485_760,
    timeout: 900,
    budget: 0,
    prod_pack_enabled: false,
  },
  paid: {
    type: 'paid',
    defaultRetries: 5,
    max_message_size: 10_485_760,
    max_requests_per_day: 10_000_000,
    max_requests_per_day_hard: 10_000_000,
    max_endpoints_per_topic: 1000,
    max_requests_per_second: 1000,
    max_dlq_size: 100_000,
    max_retries: 20,
    max_topics: 1000,
    max_schedules: 1000,
    max_events_size: 100_000,
    max_dlq_retention_time_milis: 1_209_600_000,
    max_delay: 31_536_000,
    max_parallelism: 100,
    max_global_parallelism: 100,
    max_queues: 1000,
    max_bandwidth_per_second: 104_857_600,
    timeout: 7200,
    budget: 0,
    prod_pack_enabled: false,
  },
};
