import { ENV_FILE_HINT, ENV_VARIABLES, normalizeRegion, optionalSetting, regionalSetting } from '../config';
import { ConfigError, expectObject, SignatureError } from '../errors';
import { createVerifier, type NodeVerifier, type VerifiedSignature, type Verifier, type VerifyInput } from '../signature';
import { DEV_CREDENTIALS, devServerAddress, devServerUrl } from '../dev-mode';
import type { ReceiverOptions } from './receiver-options';

// Which keys verify a delivery: the default pair (options or MAILROOM_*_SIGNING_KEY), or the pair of
// the region the delivery names in `<Prefix>-Region`.

/** Verifies one delivery's token: synchronously where node:crypto allows, else with a promise. */
export type VerifyDelivery = (input: VerifyInput) => VerifiedSignature | Promise<VerifiedSignature>;

type KeyPair = { currentSigningKey?: string | undefined; nextSigningKey?: string | undefined };

function verifierFor(options: ReceiverOptions, keys: KeyPair): VerifyDelivery {
  const verifier = createVerifier({
    currentSigningKey: keys.currentSigningKey,
    nextSigningKey: keys.nextSigningKey,
    issuer: options.issuer,
    clockToleranceSeconds: options.clockToleranceSeconds,
    now: options.now,
    implementation: options.implementation,
  });
  // The node:crypto verifier's synchronous form where there is one: the same checks and errors,
  // without a promise to await on every delivery.
  const { verifySync } = verifier as Partial<NodeVerifier>;
  return typeof verifySync === 'function' ? verifySync : (input) => (verifier as Verifier).verify(input);
}

/** The default pair's verifier, or the `ConfigError` every delivery is answered with when there is none. */
export function defaultVerifier(options: ReceiverOptions, env: ReceiverOptions['env'] & object): VerifyDelivery | ConfigError {
  // Dev mode: the dev server's documented keys, unless keys are passed in code.
  const devUrl = devServerUrl(options.dev, env);
  if (devUrl !== undefined) {
    announceDevMode(devUrl);
    if (options.currentSigningKey !== undefined || options.nextSigningKey !== undefined) {
      return verifierFor(options, {
        currentSigningKey: options.currentSigningKey ?? DEV_CREDENTIALS.currentSigningKey,
        nextSigningKey: options.nextSigningKey ?? DEV_CREDENTIALS.nextSigningKey,
      });
    }
    return devServerKeysVerifier(options, devUrl);
  }
  const currentSigningKey = optionalSetting('currentSigningKey', options.currentSigningKey, env);
  const nextSigningKey = optionalSetting('nextSigningKey', options.nextSigningKey, env);
  if (currentSigningKey === undefined && nextSigningKey === undefined) {
    // Not thrown here: an app must still boot (and answer 500 loudly) rather than crash at import.
    return new ConfigError(
      'currentSigningKey',
      ENV_VARIABLES.currentSigningKey,
      `No signing key is configured, so no message can be verified. Set ${ENV_VARIABLES.currentSigningKey} and ${ENV_VARIABLES.nextSigningKey} (or pass currentSigningKey / nextSigningKey). ${ENV_FILE_HINT}`,
    );
  }
  return verifierFor(options, { currentSigningKey, nextSigningKey });
}

/**
 * Dev mode's verifier: the dev server's documented keys, and, when a delivery does not verify with
 * them, the keys the dev server holds now (its console can rotate them), fetched once per failure
 * burst. A forgery still fails: it verifies with neither pair.
 */
function devServerKeysVerifier(options: ReceiverOptions, devUrl: string): VerifyDelivery {
  let verify = verifierFor(options, DEV_CREDENTIALS);
  let fetching: Promise<VerifyDelivery> | undefined;
  const retry = (error: unknown, input: VerifyInput): Promise<VerifiedSignature> => {
    if (!(error instanceof SignatureError) || error.reason !== 'bad-signature') return Promise.reject(error);
    fetching ??= fetchDevServerKeys(devServerAddress(devUrl))
      .then((keys) => (verify = verifierFor(options, keys)))
      .finally(() => {
        fetching = undefined;
      });
    return fetching
      .then(
        (refreshed) => refreshed(input),
        () => Promise.reject(error),
      )
      .catch((failure: unknown) => Promise.reject(devModeRefusal(failure, devUrl)));
  };
  return (input) => {
    try {
      const verified = verify(input);
      return verified instanceof Promise ? verified.catch((error: unknown) => retry(error, input)) : verified;
    } catch (error) {
      return retry(error, input);
    }
  };
}

/** A refusal in dev mode names the dev server's keys, not variables the app never set. */
function devModeRefusal(failure: unknown, devUrl: string): unknown {
  if (!(failure instanceof SignatureError) || failure.reason !== 'bad-signature') return failure;
  const message = failure.message.replace(/ Check that currentSigningKey\/nextSigningKey .*$/s, '');
  return new SignatureError(
    'bad-signature',
    `${message} Dev mode verifies with the keys of the dev server at ${devUrl}; a delivery signed by another server (or by one started with --data-dir, which has keys of its own) is refused.`,
    failure.attempts,
  );
}

async function fetchDevServerKeys(devUrl: string): Promise<KeyPair> {
  const response = await fetch(`${devUrl}/v2/keys`, {
    headers: { authorization: `Bearer ${DEV_CREDENTIALS.token}` },
    signal: AbortSignal.timeout(2_000),
  });
  if (!response.ok) throw new Error(`GET /v2/keys answered ${response.status}`);
  const keys = (await response.json()) as { current?: unknown; next?: unknown };
  if (typeof keys.current !== 'string' || typeof keys.next !== 'string') throw new Error('GET /v2/keys answered no keys');
  return { currentSigningKey: keys.current, nextSigningKey: keys.next };
}

let announced = false;

/** Said once per process: where the dev console is, also for an app that only receives. */
function announceDevMode(devUrl: string): void {
  if (announced) return;
  announced = true;
  // The token in the link's fragment is the dev server's documented one, not a secret; a browser never sends it.
  console.log(
    `[mailroom] dev mode: receiving with mailroom dev's keys; console: ${devUrl}/console/#token=${encodeURIComponent(DEV_CREDENTIALS.token)} ` +
      '(mailroom dev starts in this process with its first send, or run npx mailroom dev)',
  );
}

/**
 * A verifier per region, made on the first delivery from it: the region's pair from `regions`, else
 * from `MAILROOM_<REGION>_CURRENT_SIGNING_KEY` / `..._NEXT_SIGNING_KEY`; `undefined` without either.
 */
export function regionalVerifiers(
  options: ReceiverOptions,
  env: ReceiverOptions['env'] & object,
): (region: string) => VerifyDelivery | undefined {
  const given = new Map<string, { currentSigningKey?: string; nextSigningKey?: string }>();
  if (options.regions !== undefined) {
    expectObject(options.regions, 'regions', 'an object of region -> { currentSigningKey, nextSigningKey }');
    for (const [region, keys] of Object.entries(options.regions)) {
      expectObject(keys, `regions.${region}`, '{ currentSigningKey, nextSigningKey }');
      given.set(normalizeRegion(region)!, keys);
    }
  }
  const made = new Map<string, VerifyDelivery | undefined>();
  return (header) => {
    let region: string | undefined;
    try {
      region = normalizeRegion(header);
    } catch {
      return undefined;
    }
    if (region === undefined) return undefined;
    if (made.has(region)) return made.get(region);
    const keys = given.get(region);
    const currentSigningKey = keys?.currentSigningKey ?? regionalSetting('currentSigningKey', region, env);
    const nextSigningKey = keys?.nextSigningKey ?? regionalSetting('nextSigningKey', region, env);
    const verifier =
      currentSigningKey === undefined && nextSigningKey === undefined
        ? undefined
        : verifierFor(options, { currentSigningKey, nextSigningKey });
    // Bounded by the regions that have keys plus a handful of others: the header comes from requests.
    if (made.size < 64) made.set(region, verifier);
    return verifier;
  };
}
