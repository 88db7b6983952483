// The plans' limits, as the service's messaging user (`GET /management/v2/messaging/users`) states
// them: one table, which the dev server enforces and answers, and the clients' tests read.

// Values service-facts states are used as given (free: max_message_size, max_requests_per_day,
// max_retries 999 / paid 20, max_topics, max_queues, max_delay, DLQ retention, timeout; default
// retries 3 / 5 from the spec). The rest are the dev server's own choices, documented in its README;
// core's test fixture of the service's answer takes them from here too.
/** The limits of each plan; `GET /messaging/users` answers them and the enqueue enforces them. */
export const PLAN_LIMITS = {
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
} as const;
