import { ValidationError } from '../errors';
import { type NodeVerifier, type Verifier, type VerifierOptions, resolveVerifierConfig } from './claims';
import { createNodeVerifier, loadNodeBuiltins } from './node';
import { createWebVerifier } from './web';

/**
 * Creates the verifier of `<Prefix>-Signature` tokens: HS256 JWTs signed with the current signing
 * key, or during a rotation with the next one.
 *
 * `verify` checks, in this order, and rejects with a `SignatureError` whose `reason` names the first
 * failed check: a key is configured (`no-key`); a signature is present (`missing`); the token is a
 * well-formed compact JWS of at most 8 KiB (`malformed`); its header is a plain HS256 JWT
 * (`algorithm`); the HMAC matches the current, else the next key (`bad-signature`); the claims are
 * all present and well typed (`claims`); `iss` is the issuer (`issuer`); `sub` is `url` when one is
 * given (`subject`); `nbf`/`iat` are not in the future and `exp` not reached, give or take the
 * tolerance (`not-yet-valid`, `expired`); `body` is base64url(SHA-256(rawBody)), padded or not
 * (`body-hash`). When both keys were tried, `attempts` holds each key's reason and `reason` is the
 * most informative one. Messages never contain a key.
 *
 * `implementation: 'auto'` (the default) picks the synchronous node:crypto path where the runtime
 * offers node:crypto, and jose over Web Crypto elsewhere; both give identical verdicts. Pass
 * `'node'` to get `verifySync` (and a ValidationError at once where node:crypto is missing).
 * Invalid options throw a ValidationError here; a missing key does not (verify reports `no-key`).
 *
 * @example
 * const verifier = createVerifier({
 *   currentSigningKey: process.env.MAILROOM_CURRENT_SIGNING_KEY,
 *   nextSigningKey: process.env.MAILROOM_NEXT_SIGNING_KEY,
 *   issuer: 'Upstash',
 * });
 * const { claims, key } = await verifier.verify({
 *   signature: request.headers.get('upstash-signature'),
 *   rawBody: new Uint8Array(await request.arrayBuffer()),
 *   url: 'https://example.com/api/hook',
 * });
 */
export function createVerifier(options: VerifierOptions & { readonly implementation: 'node' }): NodeVerifier;
export function createVerifier(options: VerifierOptions): Verifier;
export function createVerifier(options: VerifierOptions): Verifier {
  const config = resolveVerifierConfig(options);
  if (config.implementation === 'webcrypto') return createWebVerifier(config);
  const builtins = loadNodeBuiltins();
  if (builtins !== undefined) return createNodeVerifier(config, builtins);
  if (config.implementation === 'node') {
    throw new ValidationError('implementation', 'node:crypto is not available in this runtime; use "auto" or "webcrypto"');
  }
  return createWebVerifier(config);
}
