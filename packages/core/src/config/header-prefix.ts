import { ConfigError } from '../errors/config-error';
import { ENV_VARIABLES, processEnvironment, type Environment } from './env-variables';

/** The neutral default of the spec; the real service uses `Upstash`. */
export const DEFAULT_HEADER_PREFIX = 'Service';

// A prefix becomes part of header names (`<Prefix>-Retries`), so it must be a plain token with no
// trailing dash: the dash is ours to add.
const PREFIX_PATTERN = /^[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*$/;

/**
 * Resolves the vendor header prefix: argument, then `MAILROOM_HEADER_PREFIX`, then `Service`.
 *
 * @example resolveHeaderPrefix('Upstash') // 'Upstash'
 */
export function resolveHeaderPrefix(given?: string, env: Environment = processEnvironment()): string {
  const fromEnv = env[ENV_VARIABLES.headerPrefix];
  const value = given ?? (fromEnv !== undefined && fromEnv.trim() !== '' ? fromEnv.trim() : DEFAULT_HEADER_PREFIX);
  if (typeof value !== 'string' || !PREFIX_PATTERN.test(value)) {
    throw new ConfigError(
      'headerPrefix',
      ENV_VARIABLES.headerPrefix,
      `Invalid header prefix ${JSON.stringify(value)}: use letters and digits, like "Service" or "Upstash" (without a trailing "-").`,
    );
  }
  return value;
}
