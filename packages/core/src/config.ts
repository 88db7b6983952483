// Settings: the argument wins, then its MAILROOM_* variable; one table of variable names.

import { ConfigError } from './errors';

/**
 * The environment variable behind each option. One table, so the docs, the dev server's printout and
 * the error messages can never disagree about a name.
 */
export const ENV_VARIABLES = {
  baseUrl: 'MAILROOM_URL',
  token: 'MAILROOM_TOKEN',
  currentSigningKey: 'MAILROOM_CURRENT_SIGNING_KEY',
  nextSigningKey: 'MAILROOM_NEXT_SIGNING_KEY',
  managementUrl: 'MAILROOM_MANAGEMENT_URL',
  managementUser: 'MAILROOM_MANAGEMENT_USER',
  managementPassword: 'MAILROOM_MANAGEMENT_PASSWORD',
  headerPrefix: 'MAILROOM_HEADER_PREFIX',
  // The `iss` claim receivers expect: `Service` by default, `Upstash` on the real service.
  issuer: 'MAILROOM_ISSUER',
  // Not in the service's settings: the public URL of the receiving app, so `send(def, ...)` can turn a
  // destination's path into the URL the service must call.
  appUrl: 'MAILROOM_APP_URL',
  // The receiving app's public base URL, for when a proxy or rewrite changes the path a request
  // arrives at: signatures are then checked against the whole public URL instead of the path.
  publicUrl: 'MAILROOM_PUBLIC_URL',
  // The region a client sends through; each region's settings are `MAILROOM_<REGION>_<SETTING>`.
  region: 'MAILROOM_REGION',
  // Dev mode: talk to `mailroom dev` with its documented credentials, starting it when needed.
  dev: 'MAILROOM_DEV',
} as const;

export type ConfigOption = keyof typeof ENV_VARIABLES;

/** Where settings come from when not passed in code. Injectable so tests never touch `process.env`. */
export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * The process environment where there is one. Edge runtimes and browsers have no `process`; they get
 * an empty environment rather than a crash at import time.
 */
export function processEnvironment(): Environment {
  const proc = (globalThis as { process?: { env?: Environment } }).process;
  return proc?.env ?? {};
}

/** The neutral default of the spec; the real service uses `Upstash`. */
const DEFAULT_HEADER_PREFIX = 'Service';

// A prefix becomes part of header names (`<Prefix>-Retries`), so it must be a plain token with no
// trailing dash: the dash is ours to add.
const PREFIX_PATTERN = /^[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*$/;

/**
 * Resolves the vendor header prefix: argument, then `MAILROOM_HEADER_PREFIX`, then `Service`.
 *
 * @example resolveHeaderPrefix('Upstash') // 'Upstash'
 */
export function resolveHeaderPrefix(given?: string, env?: Environment): string {
  // The environment only when needed: reading `process.env` costs more than the rest of this check.
  let value = given;
  if (value === undefined) {
    const fromEnv = (env ?? processEnvironment())[ENV_VARIABLES.headerPrefix];
    value = fromEnv !== undefined && fromEnv.trim() !== '' ? fromEnv.trim() : DEFAULT_HEADER_PREFIX;
  }
  if (typeof value !== 'string' || !PREFIX_PATTERN.test(value)) {
    throw new ConfigError(
      'headerPrefix',
      ENV_VARIABLES.headerPrefix,
      `Invalid header prefix ${JSON.stringify(value)}: use letters and digits, like "Service" or "Upstash" (without a trailing "-").`,
    );
  }
  return value;
}

/**
 * One setting: the argument wins, then its `MAILROOM_*` variable. Empty strings count as missing
 * because an `.env` line like `MAILROOM_TOKEN=` is a forgotten value, not a deliberate empty token.
 */
export function optionalSetting(
  option: ConfigOption,
  given: string | undefined,
  env: Environment = processEnvironment(),
): string | undefined {
  if (given !== undefined && given !== null) {
    if (typeof given !== 'string') {
      throw new ConfigError(option, ENV_VARIABLES[option], `Option "${option}" must be a string, got ${typeof given}.`);
    }
    if (given.trim() !== '') return given.trim();
  }
  const fromEnv = env[ENV_VARIABLES[option]];
  return fromEnv !== undefined && fromEnv.trim() !== '' ? fromEnv.trim() : undefined;
}

const REGION = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/;

/**
 * A region as the service names it in variables (`EU_CENTRAL_1`), from either spelling
 * (`eu-central-1` in the `<Prefix>-Region` header).
 *
 * @example normalizeRegion('eu-central-1') // 'EU_CENTRAL_1'
 */
export function normalizeRegion(region: string | undefined): string | undefined {
  if (region === undefined) return undefined;
  const normalized = region.trim().replaceAll('-', '_').toUpperCase();
  if (!REGION.test(normalized)) {
    throw new ConfigError(
      'region',
      ENV_VARIABLES.region,
      `Invalid region ${JSON.stringify(region)}: use a name such as eu-central-1 or EU_CENTRAL_1.`,
    );
  }
  return normalized;
}

/**
 * A setting's value for one region: `MAILROOM_EU_CENTRAL_1_TOKEN` for `token` in `EU_CENTRAL_1`;
 * `undefined` without a region or when that variable is not set (the default one applies then).
 */
export function regionalSetting(option: ConfigOption, region: string | undefined, env: Environment): string | undefined {
  if (region === undefined) return undefined;
  const value = env[regionalVariable(option, region)];
  return value !== undefined && value.trim() !== '' ? value.trim() : undefined;
}

/** The variable of a setting in one region: `MAILROOM_URL` in `EU_CENTRAL_1` is `MAILROOM_EU_CENTRAL_1_URL`. */
function regionalVariable(option: ConfigOption, region: string): string {
  return ENV_VARIABLES[option].replace(/^MAILROOM_/, `MAILROOM_${region}_`);
}

/** Whether every one of these settings is given, in code or by its variable. */
export function settingsPresent(env: Environment, ...settings: Array<[ConfigOption, string | undefined]>): boolean {
  return settings.every(([option, given]) => optionalSetting(option, given, env) !== undefined);
}

/** Like {@link optionalSetting}, but a missing value is a `ConfigError` naming the option and the variable. */
export function requiredSetting(
  option: ConfigOption,
  given: string | undefined,
  env: Environment = processEnvironment(),
  purpose = '',
  /** The name the caller's options object uses, when it differs (the management client's `user` is `managementUser`). */
  optionName: string = option,
): string {
  const value = optionalSetting(option, given, env);
  if (value === undefined) {
    const variable = ENV_VARIABLES[option];
    const why = purpose ? ` ${purpose}` : '';
    throw new ConfigError(
      optionName,
      variable,
      `Missing setting "${optionName}".${why} Pass { ${optionName}: ... } or set the environment variable ${variable}. ${ENV_FILE_HINT}`,
    );
  }
  return value;
}

/**
 * Said with every missing `MAILROOM_*` setting: a `.env` file is only read by a runtime or framework
 * that loads it, and Express and NestJS do not.
 */
export const ENV_FILE_HINT =
  'A .env file counts only once it is loaded: Next.js loads it itself; run Express with node --env-file=.env ' +
  '(Node 20.6+), and NestJS with ConfigModule.forRoot() from @nestjs/config (or node --env-file=.env).';

function variableOf(option: string): string | undefined {
  return (ENV_VARIABLES as Record<string, string>)[option];
}

/** A base URL must be absolute http(s); anything else would fail later with a far vaguer fetch error. */
export function checkBaseUrl(option: ConfigOption | (string & {}), value: string): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigError(
      option,
      variableOf(option),
      `Option "${option}" is not a valid URL: ${JSON.stringify(value)}. Use an absolute URL such as http://127.0.0.1:8288.`,
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(
      option,
      variableOf(option),
      `Option "${option}" must start with http:// or https://, got ${JSON.stringify(value)}.`,
    );
  }
  if (parsed.search || parsed.hash) {
    throw new ConfigError(option, variableOf(option), `Option "${option}" must not carry a query or fragment: ${JSON.stringify(value)}.`);
  }
  return value;
}
