import { expectObject, ValidationError } from '../errors';
import type { IdempotencyStore } from './guard';

// The stores: in memory (tests, one instance), Redis and Postgres (instances sharing one store). The
// latter two take the application's own client, so Mailroom depends on no driver: any client with the
// calls used here works (ioredis or node-redis; pg's Pool or Client).

/** What a key holds: a claim by one owner until its lease ends, or done until its TTL ends. */
interface MemoryEntry {
  owner: string | undefined;
  until: number;
}

/**
 * A store in this process's memory, bounded (the oldest keys go first beyond `maxKeys`, default
 * 10,000, give or take a tenth): for tests and an app of one instance. Instances that share work need a shared store.
 */
export function createMemoryStore(options: { maxKeys?: number; now?: () => number } = {}): IdempotencyStore {
  expectObject(options, 'options', 'an object of memory store options');
  const maxKeys = options.maxKeys ?? 10_000;
  if (!Number.isSafeInteger(maxKeys) || maxKeys < 1)
    throw new ValidationError('maxKeys', `expected a whole number of keys above 0, got ${String(maxKeys)}`);
  const now = options.now ?? Date.now;
  const entries = new Map<string, MemoryEntry>();
  const live = (key: string): MemoryEntry | undefined => {
    const entry = entries.get(key);
    if (entry && entry.until <= now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  };
  const add = (key: string, entry: MemoryEntry) => {
    entries.set(key, entry);
    // Evicted a tenth at a time: one pass from the oldest, instead of a Map iterator per insert
    // (which walks over every slot an earlier delete left, until the Map rehashes).
    if (entries.size <= maxKeys + Math.ceil(maxKeys / 10)) return;
    let excess = entries.size - maxKeys;
    for (const oldest of entries.keys()) {
      if (excess-- <= 0) break;
      entries.delete(oldest);
    }
  };
  return {
    claim(key, owner, leaseMs) {
      const entry = live(key);
      if (entry) return entry.owner === undefined ? { state: 'done' } : { state: 'busy', retryAfterMs: entry.until - now() };
      add(key, { owner, until: now() + leaseMs });
      return { state: 'claimed' };
    },
    complete(key, owner, ttlMs) {
      const entry = live(key);
      if (entry && entry.owner !== owner) return;
      // Updated in place: the key keeps its age, and the Map is not touched.
      if (entry) {
        entry.owner = undefined;
        entry.until = now() + ttlMs;
      } else add(key, { owner: undefined, until: now() + ttlMs });
    },
    renew(key, owner, leaseMs) {
      const entry = live(key);
      if (entry?.owner === owner) entry.until = now() + leaseMs;
    },
    release(key, owner) {
      if (live(key)?.owner === owner) entries.delete(key);
    },
  };
}

/** The calls of a Redis client this store makes: ioredis (`call`) and node-redis 4+ (`sendCommand`). */
export type RedisClientLike =
  | { call(command: string, ...args: string[]): Promise<unknown> }
  | { sendCommand(args: string[]): Promise<unknown> };

// Each script is one atomic step in Redis. A claim is `claimed:<owner>` with the lease as its expiry
// (a crashed holder's claim expires by itself), done is `done` with the TTL as its expiry.
const CLAIM = `local v = redis.call('GET', KEYS[1])
if not v then redis.call('SET', KEYS[1], 'claimed:' .. ARGV[1], 'PX', ARGV[2]) return 'claimed' end
if v == 'done' then return 'done' end
return 'busy:' .. redis.call('PTTL', KEYS[1])`;
// Done unless another owner took it over after this one's lease ended (then that one completes it).
const COMPLETE = `local v = redis.call('GET', KEYS[1])
if (not v) or v == 'claimed:' .. ARGV[1] then redis.call('SET', KEYS[1], 'done', 'PX', ARGV[2]) end
return 1`;
const RENEW = `if redis.call('GET', KEYS[1]) == 'claimed:' .. ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1`;
const RELEASE = `if redis.call('GET', KEYS[1]) == 'claimed:' .. ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1`;

/**
 * A store in Redis, shared by every instance of the app: one key per message and destination under
 * `keyPrefix` (default `mailroom:handled:`), claimed and completed by Lua scripts (atomic), expiring
 * by itself. Pass your connected client: `new Redis(url)` (ioredis) or `createClient()` (redis).
 */
export function createRedisStore(client: RedisClientLike, options: { keyPrefix?: string } = {}): IdempotencyStore {
  const run = redisRunner(client);
  expectObject(options, 'options', 'an object of Redis store options');
  const prefix = options.keyPrefix ?? 'mailroom:handled:';
  if (typeof prefix !== 'string') throw new ValidationError('keyPrefix', 'expected a string');
  const script = (source: string, key: string, ...args: string[]) => run(['EVAL', source, '1', prefix + key, ...args]);
  return {
    async claim(key, owner, leaseMs) {
      const answer = String(await script(CLAIM, key, owner, String(Math.ceil(leaseMs))));
      if (answer === 'claimed' || answer === 'done') return { state: answer };
      return { state: 'busy', retryAfterMs: Math.max(0, Number(answer.slice('busy:'.length))) };
    },
    async renew(key, owner, leaseMs) {
      await script(RENEW, key, owner, String(Math.ceil(leaseMs)));
    },
    async complete(key, owner, ttlMs) {
      await script(COMPLETE, key, owner, String(Math.ceil(ttlMs)));
    },
    async release(key, owner) {
      await script(RELEASE, key, owner);
    },
  };
}

function redisRunner(client: RedisClientLike): (args: string[]) => Promise<unknown> {
  if (client !== null && typeof client === 'object') {
    if ('call' in client && typeof client.call === 'function') return (args) => client.call(args[0]!, ...args.slice(1));
    if ('sendCommand' in client && typeof client.sendCommand === 'function') return (args) => client.sendCommand(args);
  }
  throw new ValidationError(
    'client',
    'expected a connected Redis client: ioredis (new Redis(url)) or redis (await createClient().connect())',
  );
}

/** The call of a Postgres client this store makes: pg's `Pool` or `Client`. */
export interface PostgresClientLike {
  query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
}

/**
 * A store in Postgres, shared by every instance of the app: one table (default `mailroom_handled`,
 * made on first use with `CREATE TABLE IF NOT EXISTS`; see docs/idempotency.md to make it yourself),
 * one row per message and destination, claimed with `INSERT ... ON CONFLICT` in one statement.
 */
export function createPostgresStore(client: PostgresClientLike, options: { table?: string } = {}): IdempotencyStore {
  if (client === null || typeof client !== 'object' || typeof client.query !== 'function') {
    throw new ValidationError(
      'client',
      "expected a pg Pool or Client (new Pool({ connectionString })) or anything with pg's query(text, values)",
    );
  }
  const table = tableOf(options);
  let ready: Promise<unknown> | undefined;
  const query = async (text: string, values: unknown[]) => {
    ready ??= client
      .query(`CREATE TABLE IF NOT EXISTS ${table} (key text PRIMARY KEY, owner text, until timestamptz NOT NULL)`)
      .catch((error: unknown) => {
        ready = undefined;
        throw error;
      });
    await ready;
    return client.query(text, values);
  };
  return {
    async claim(longKey, owner, leaseMs) {
      const key = await rowKey(longKey);
      // One statement: insert, or take over a lapsed claim or expired row; a live row is left alone
      // and read back as it is, so two concurrent claims cannot both win.
      const { rows } = await query(
        `INSERT INTO ${table} AS t (key, owner, until) VALUES ($1, $2, now() + $3::bigint * interval '1 millisecond')
         ON CONFLICT (key) DO UPDATE SET owner = EXCLUDED.owner, until = EXCLUDED.until WHERE t.until <= now()
         RETURNING owner`,
        [key, owner, Math.ceil(leaseMs)],
      );
      if (rows.length > 0) return { state: 'claimed' };
      const held = await query(
        `SELECT owner, GREATEST(0, EXTRACT(EPOCH FROM until - now()) * 1000)::float8 AS left_ms FROM ${table} WHERE key = $1`,
        [key],
      );
      const row = held.rows[0];
      // Gone between the two statements (it expired): the next delivery claims it.
      if (!row) return { state: 'busy', retryAfterMs: 0 };
      return row.owner === null ? { state: 'done' } : { state: 'busy', retryAfterMs: Number(row.left_ms) };
    },
    async renew(longKey, owner, leaseMs) {
      await query(`UPDATE ${table} SET until = now() + $3::bigint * interval '1 millisecond' WHERE key = $1 AND owner = $2`, [
        await rowKey(longKey),
        owner,
        Math.ceil(leaseMs),
      ]);
    },
    async complete(longKey, owner, ttlMs) {
      const key = await rowKey(longKey);
      await query(
        `INSERT INTO ${table} AS t (key, owner, until) VALUES ($1, NULL, now() + $3::bigint * interval '1 millisecond')
         ON CONFLICT (key) DO UPDATE SET owner = NULL, until = EXCLUDED.until WHERE t.owner = $2 OR t.until <= now()`,
        [key, owner, Math.ceil(ttlMs)],
      );
    },
    async release(longKey, owner) {
      await query(`DELETE FROM ${table} WHERE key = $1 AND owner = $2`, [await rowKey(longKey), owner]);
    },
  };
}

// A btree row holds at most about 2.7 KB: a longer key (a long presigned destination URL) is kept as its digest.
const MAX_ROW_KEY = 512;

async function rowKey(key: string): Promise<string> {
  if (key.length <= MAX_ROW_KEY) return key;
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(key));
  return `sha256:${Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

/** Deletes the Postgres store's expired rows (Redis and memory expire by themselves): run it daily. */
export async function deleteExpiredRows(client: PostgresClientLike, options: { table?: string } = {}): Promise<number> {
  const table = tableOf(options);
  const { rows } = await client.query(
    `WITH gone AS (DELETE FROM ${table} WHERE until <= now() RETURNING 1) SELECT count(*)::int AS n FROM gone`,
  );
  return Number(rows[0]?.n ?? 0);
}

/** The table's name, checked: it is written into the statements, so only a plain identifier will do. */
function tableOf(options: { table?: string }): string {
  expectObject(options, 'options', 'an object of Postgres store options ({ table })');
  const table = options.table ?? 'mailroom_handled';
  if (typeof table !== 'string' || !/^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$/.test(table)) {
    throw new ValidationError(
      'table',
      `expected a lower-case table name, optionally schema-qualified (mailroom_handled), got ${String(table)}`,
    );
  }
  return table;
}
