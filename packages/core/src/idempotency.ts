/**
 * `@mailroom/core/idempotency`: the stores behind an endpoint's `idempotency` option, so a message
 * delivered more than once is handled once. See docs/idempotency.md.
 */
export {
  createMemoryStore,
  createPostgresStore,
  createRedisStore,
  deleteExpiredRows,
  type PostgresClientLike,
  type RedisClientLike,
} from './idempotency/stores';
export type { ClaimResult, IdempotencySettings, IdempotencyStore } from './idempotency/guard';
