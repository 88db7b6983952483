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
  // Not in the service's settings: the public URL of the receiving app, so `send(def, ...)` can turn a
  // destination's path into the URL the service must call.
  appUrl: 'MAILROOM_APP_URL',
  // The receiving app's public base URL, for when a proxy or rewrite changes the path a request
  // arrives at: signatures are then checked against the whole public URL instead of the path.
  publicUrl: 'MAILROOM_PUBLIC_URL',
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
