import { z } from 'zod';
import { knownString } from './known-string';
import { nilSafeArray } from './nil-safe-array';

/** Account states the spec names; the service "may return other values". */
export const MESSAGING_USER_STATES = ['active', 'passive'] as const;
/** Billing plan categories the spec names. */
export const MESSAGING_USER_TYPES = ['free', 'paid'] as const;
/** Deployment regions the spec names for messaging users. */
export const MESSAGING_USER_REGIONS = ['eu-central-1', 'us-east-1'] as const;
/** Fixed-tier labels the spec names; enterprise accounts use `enterprise:<id>` instead. */
export const MESSAGING_RESERVED_TYPES = ['messaging_fixed_1m', 'messaging_fixed_10m', 'messaging_fixed_100m', 'messaging_fixed'] as const;

/** `reserved_type`: a fixed-tier label, `enterprise:<id>`, an empty string for other plans, or something newer. */
export type MessagingReservedType = (typeof MESSAGING_RESERVED_TYPES)[number] | `enterprise:${string}` | '' | (string & {});

// Every documented field is required except the three the spec calls optional, because the spec
// lists them as always present and a client that silently got `undefined` limits would be worse
// than a clear ResponseValidationError. Enumerated values are lenient (see known-string.ts), and
// unknown keys pass through: real answers carry undocumented fields.
/** One messaging user account with its plan details and limits (management `GET /messaging/users`). */
export const messagingUserSchema = z.looseObject({
  /** An e-mail or a team id. */
  customer_id: z.string(),
  id: z.string(),
  token: z.string(),
  read_only_token: z.string(),
  active: z.boolean(),
  state: knownString(MESSAGING_USER_STATES),
  /** Present only while an asynchronous change (e.g. `suspended`) is being applied. */
  modifying_state: knownString(['suspended']).optional(),
  /** Unix seconds. */
  last_plan_upgrade_time: z.number(),
  /** Bytes. */
  max_message_size: z.number(),
  max_requests_per_day: z.number(),
  max_requests_per_day_hard: z.number(),
  max_endpoints_per_topic: z.number(),
  max_requests_per_second: z.number(),
  max_dlq_size: z.number(),
  max_retries: z.number(),
  max_topics: z.number(),
  max_schedules: z.number(),
  max_events_size: z.number(),
  /** Milliseconds; the spelling `milis` is the service's. */
  max_dlq_retention_time_milis: z.number(),
  /** Seconds. */
  max_delay: z.number(),
  max_parallelism: z.number(),
  max_global_parallelism: z.number(),
  max_queues: z.number(),
  /** Bytes per second. */
  max_bandwidth_per_second: z.number(),
  prod_pack_enabled: z.boolean(),
  /** The STRING `'true'` or `'false'`, not a boolean: the service's own choice, kept as sent. */
  prometheus_enabled: knownString(['true', 'false']),
  /** Seconds. */
  timeout: z.number(),
  type: knownString(MESSAGING_USER_TYPES),
  region: knownString(MESSAGING_USER_REGIONS),
  /** Empty or absent for plans that are not fixed-tier or enterprise. */
  reserved_type: (z.string() as unknown as z.ZodType<MessagingReservedType, string>).optional(),
  /** May be 0. */
  reserved_price: z.number(),
  created_by: z.string(),
  /** Unix seconds. */
  creation_time: z.number(),
  /** Unix seconds; 0 when not deleted. */
  deletion_time: z.number(),
  /** Monthly budget in dollars; 0 means no limit. */
  budget: z.number(),
  /** Present for enterprise accounts only. */
  enterprise: z.looseObject({ enabled: z.boolean() }).optional(),
});

/** One messaging user account (management interface). Unknown fields are kept. */
export type MessagingUser = z.infer<typeof messagingUserSchema>;

/** The answer of `GET /messaging/users` (`null` from an empty Go slice reads as `[]`). */
export const messagingUsersSchema = nilSafeArray(messagingUserSchema);
