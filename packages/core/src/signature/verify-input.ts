import { reject } from './failure';
import type { VerifierConfig } from './verifier-config';

export interface VerifyRequest {
  readonly signature: unknown;
  readonly rawBody: Uint8Array | string;
  readonly url: string | undefined;
}

/**
 * The checks that come before the token is even read, shared by both implementations. `no-key` goes
 * first: without a key every request fails, and that is the server's fault, not the caller's.
 */
export function readVerifyInput(input: unknown, config: VerifierConfig): VerifyRequest {
  if (config.keys.length === 0) {
    reject(
      'no-key',
      'no signing key is configured; set currentSigningKey and nextSigningKey (MAILROOM_CURRENT_SIGNING_KEY, MAILROOM_NEXT_SIGNING_KEY)',
    );
  }
  if (typeof input !== 'object' || input === null) reject('missing', 'verify() needs { signature, rawBody }');
  const { signature, rawBody, url } = input as Partial<VerifyRequest>;
  if (signature === undefined || signature === null || signature === '') reject('missing', 'the request carries no signature header');
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    reject('body-hash', `rawBody must be the received bytes (a Uint8Array or a string), got ${rawBody === null ? 'null' : typeof rawBody}`);
  }
  if (url !== undefined && typeof url !== 'string') reject('subject', `url must be a string, got ${url === null ? 'null' : typeof url}`);
  return { signature, rawBody, url };
}
