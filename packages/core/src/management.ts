import { requesterSettings, type SharedClientOptions } from './http/requester-options';
import { checkBaseUrl, processEnvironment, requiredSetting, settingsPresent } from './config';
import { DEV_CREDENTIALS, devServerUrl, type DevOption } from './dev-mode';
import { expectObject, ValidationError } from './errors';
import { createRequesterWhenConfigured, type HttpTransport, type Requester } from './http';
import { transportOption } from './messaging/client';
import { checkSearchIndexInput, STATS_PERIODS, type CreateSearchIndexInput, type StatsPeriod } from './management-vocabulary';
import type { MessagingStats, MessagingUser, SearchIndex } from './schemas';
import { parseAnswer } from './schemas/lazy';
import type { ResponseName, ResponseOf } from './schemas/responses';

export interface ManagementClientOptions extends SharedClientOptions {
  /** The management base URL (`{mgmt_base_url}`, ending in `/v2`). Env: `MAILROOM_MANAGEMENT_URL`. */
  baseUrl?: string;
  /** Account e-mail. Env: `MAILROOM_MANAGEMENT_USER`. */
  user?: string;
  /** Management API key. Env: `MAILROOM_MANAGEMENT_PASSWORD`. */
  password?: string;
  /** Dev mode (env `MAILROOM_DEV=1`): the management interface of `mailroom dev` with its documented credentials. */
  dev?: DevOption;
  /** Sends the requests instead of `fetch`, e.g. `createUndiciTransport()` on Node. Exclusive with `fetch`. */
  transport?: HttpTransport;
}

export interface ManagementClient {
  /** Every messaging user of the account, with plan and limits. */
  users(options?: { signal?: AbortSignal }): Promise<MessagingUser[]>;
  /** Usage statistics of one messaging user; every point's `x` is also parsed to `date`. */
  stats(id: string, options?: { period?: StatsPeriod; signal?: AbortSignal }): Promise<MessagingStats>;
  searchIndexes: {
    create(input: CreateSearchIndexInput, options?: { signal?: AbortSignal }): Promise<SearchIndex>;
    get(id: string, options?: { signal?: AbortSignal }): Promise<SearchIndex>;
  };
}

/**
 * A client of the management interface (HTTP Basic: account e-mail and management API key).
 *
 * @example
 * const management = createManagementClient({ baseUrl: 'http://127.0.0.1:8288/management/v2', user, password });
 * const [user] = await management.users();
 * const stats = await management.stats(user.id, { period: '1d' });
 */
export function createManagementClient(options: ManagementClientOptions = {}): ManagementClient {
  return buildManagementClient(options, false);
}

/** {@link createManagementClient}, reading its settings now: a missing one throws the `ConfigError` at once. */
export function createManagementClientNow(options: ManagementClientOptions = {}): ManagementClient {
  return buildManagementClient(options, true);
}

function buildManagementClient(options: ManagementClientOptions, now: boolean): ManagementClient {
  const env = options.env ?? processEnvironment();
  const devUrl = devServerUrl(options.dev, env);
  if (devUrl !== undefined) {
    return buildManagementClient(
      {
        ...options,
        dev: false,
        baseUrl: `${devUrl}/management/v2`,
        user: DEV_CREDENTIALS.managementUser,
        password: DEV_CREDENTIALS.managementPassword,
      },
      now,
    );
  }
  // Read now when all three are there; a missing one is required on first use (see createRequesterWhenConfigured).
  const requester = createRequesterWhenConfigured(
    () => ({
      ...requesterSettings(options),
      ...transportOption(options.transport),
      baseUrl: checkBaseUrl(
        'baseUrl',
        requiredSetting('managementUrl', options.baseUrl, env, 'It is the management base URL of the service, ending in /v2.', 'baseUrl'),
      ),
      auth: {
        kind: 'basic',
        user: requiredSetting('managementUser', options.user, env, 'It is the account e-mail.', 'user'),
        password: requiredSetting('managementPassword', options.password, env, 'It is the management API key.', 'password'),
      },
    }),
    now ||
      settingsPresent(env, ['managementUrl', options.baseUrl], ['managementUser', options.user], ['managementPassword', options.password]),
  );
  return {
    users: (callOptions = {}) => get(requester, ['messaging', 'users'], 'messagingUsers', callOptions),
    stats: (id, callOptions = {}) => stats(requester, id, callOptions),
    searchIndexes: {
      create: (input, callOptions = {}) => createSearchIndex(requester, input, callOptions),
      get: (id, callOptions = {}) => get(requester, ['search', checkId('id', id)], 'searchIndex', callOptions),
    },
  };
}

function stats(requester: Requester, id: string, options: { period?: StatsPeriod; signal?: AbortSignal }): Promise<MessagingStats> {
  // `stats(id, '1d')` or `{ peroid: '1d' }` would otherwise silently answer the default hour.
  expectObject(options, 'options', "{ period: '1d' } (1h, 3h, 12h, 1d, 3d, 7d or 30d)");
  for (const key of Object.keys(options)) {
    if (key !== 'period' && key !== 'signal') throw new ValidationError(key, 'unknown option; known options are period, signal');
  }
  const period = options.period;
  if (period !== undefined && !(STATS_PERIODS as readonly string[]).includes(period)) {
    throw new ValidationError('period', `expected one of ${STATS_PERIODS.join(', ')}, got ${JSON.stringify(period)}`);
  }
  return requester.requestJson(
    { method: 'GET', path: ['messaging', 'stats', checkId('id', id)], query: { period }, ...signalOf(options) },
    (value, url) => parseAnswer('messagingStats', value, url),
  );
}

async function createSearchIndex(
  requester: Requester,
  input: CreateSearchIndexInput,
  options: { signal?: AbortSignal },
): Promise<SearchIndex> {
  const checked = checkSearchIndexInput(input);
  if (!checked.ok) throw new ValidationError(checked.field || 'input', checked.message);
  // Creating is not idempotent: a retry after a lost answer would create a second index.
  return requester.requestJson(
    { method: 'POST', path: ['search'], json: checked.input, retrySafe: false, ...signalOf(options) },
    (value, url) => parseAnswer('searchIndex', value, url),
  );
}

function get<Name extends ResponseName>(
  requester: Requester,
  path: string[],
  schema: Name,
  options: { signal?: AbortSignal },
): Promise<ResponseOf<Name>> {
  return requester.requestJson({ method: 'GET', path, ...signalOf(options) }, (value, url) => parseAnswer(schema, value, url));
}

function checkId(path: string, id: unknown): string {
  if (typeof id !== 'string' || id.trim() === '') throw new ValidationError(path, `expected a non-empty id, got ${JSON.stringify(id)}`);
  return id;
}

function signalOf(options: { signal?: AbortSignal }): { signal?: AbortSignal } {
  return options.signal ? { signal: options.signal } : {};
}
