import type * as NodeBuffer from 'node:buffer';

import type * as NodeCrypto from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { ConfigError } from '../errors';
import { DEFAULT_SIGNATURE_TTL_SECONDS } from './sign';
import {
  BODY_MISMATCH,
  MAX_TOKEN_LENGTH,
  bodyClaimMatches,
  constantTimeEqual,
  isBase64url,
  parseToken,
  readClockSeconds,
  type ParsedToken,
  type SegmentDecoder,
} from './token';
import {
  attemptsError,
  checkClaims,
  fail,
  isFailure,
  readVerifyInput,
  toVerifyError,
  type Attempt,
  type ClaimExpectations,
  type Failure,
  type NodeVerifier,
  type SignatureClaims,
  type SigningKeySlot,
  type VerifiedSignature,
  type VerifierConfig,
  type VerifyInput,
} from './claims';

// Type-only imports: erased at build time, so no bundler ever sees node:crypto or node:buffer here.

/** The parts of node:crypto and node:buffer the fast verifier uses. */
export interface NodeBuiltins {
  readonly crypto: Pick<typeof NodeCrypto, 'createHash' | 'createHmac' | 'createSecretKey'> &
    // One-shot digest, Node >= 20.12; absent from some Node look-alikes.
    Partial<Pick<typeof NodeCrypto, 'hash'>>;
  readonly Buffer: typeof NodeBuffer.Buffer;
}

const CRYPTO_FUNCTIONS = ['createHash', 'createHmac', 'createSecretKey'];

/**
 * Finds node:crypto and node:buffer without importing them, so the same bundle runs on Node and on
 * edge runtimes.
 *
 * - A static `import 'node:crypto'` breaks edge bundles (Next's edge runtime refuses node modules).
 * - A dynamic `import()` is asynchronous, and the point of this path is a synchronous verify.
 * - `process.getBuiltinModule` (Node >= 20.16, also Bun and Deno) is synchronous and invisible to
 *   bundlers. It is reached through `globalThis`, because bundlers pattern-match the free `process`
 *   identifier (Next warns about `process.*` in edge code).
 *
 * Feature detection, not version sniffing: browser polyfills fake `process.versions.node`, and
 * Next's edge sandbox defines `getBuiltinModule` as a stub that throws when called. So: no
 * `EdgeRuntime` global, a `getBuiltinModule` that returns modules which really have the functions we
 * call, and no exception on the way. Anything else means "use Web Crypto".
 *
 * @example
 * loadNodeBuiltins()?.crypto.createHmac('sha256', 'key'); // a Hmac on Node, undefined on the edge
 */
export function loadNodeBuiltins(host: object = globalThis): NodeBuiltins | undefined {
  try {
    if (typeof (host as { EdgeRuntime?: unknown }).EdgeRuntime === 'string') return undefined;
    const processObject = (host as { process?: { getBuiltinModule?: unknown } }).process;
    const getBuiltinModule = processObject?.getBuiltinModule;
    if (typeof getBuiltinModule !== 'function') return undefined;
    const crypto: unknown = getBuiltinModule.call(processObject, 'node:crypto');
    const buffer: unknown = getBuiltinModule.call(processObject, 'node:buffer');
    if (!hasFunctions(crypto, CRYPTO_FUNCTIONS) || !hasFunctions(buffer, ['Buffer'])) return undefined;
    return { crypto, Buffer: buffer.Buffer } as unknown as NodeBuiltins;
  } catch {
    return undefined;
  }
}

function hasFunctions(candidate: unknown, names: readonly string[]): candidate is Record<string, (...args: never[]) => unknown> {
  if (typeof candidate !== 'object' || candidate === null) return false;
  return names.every((name) => typeof (candidate as Record<string, unknown>)[name] === 'function');
}

/** Signs one delivery: the `<Prefix>-Signature` token for this exact URL and body. */
export type TokenSigner = (url: string, body: Uint8Array) => string;

export interface TokenSignerOptions {
  /** The current signing key; its UTF-8 bytes are the HMAC key. */
  key: string;
  issuer: string;
  /** Unix milliseconds. */
  now: () => number;
  /** Token ids; default `jwt_` + 32 random hex digits, like `sign`'s. */
  jti?: () => string;
}

// base64url of `{"alg":"HS256","typ":"JWT"}`, exactly as jose serialises the header `sign` sets (a
// test checks the two agree). A literal: this module must load where `Buffer` does not exist.
const HEADER = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9';

/**
 * The synchronous node:crypto signer, beside the node:crypto verifier: the same token as `sign()`
 * (claims `iss`, `sub`, `iat`, `nbf`, `exp`, `jti`, `body`, in that order, byte for byte; a test
 * holds them equal) without jose's promise and key import per call, for a server that signs every
 * delivery (the dev server). Its options are trusted: check them once where they come from.
 *
 * @example const signer = createTokenSigner({ key: 'sig_current', issuer: 'Service', now: Date.now }); signer(url, body)
 */
export function createTokenSigner(options: TokenSignerOptions): TokenSigner {
  const { issuer, now } = options;
  // Found at run time like the verifier's: a static import would break every edge bundle of core.
  const builtins = loadNodeBuiltins();
  if (!builtins) {
    throw new ConfigError(
      'key',
      undefined,
      'createTokenSigner needs node:crypto (Node, Bun or Deno); elsewhere sign with sign(), which uses Web Crypto',
    );
  }
  const { crypto: nodeCrypto, Buffer } = builtins;
  const digest = digestFunction(builtins);
  // Imported once: a string key would be read into a key object on every signature.
  const key = nodeCrypto.createSecretKey(Buffer.from(options.key, 'utf8'));
  const jti = options.jti ?? randomTokenIds(Buffer);
  const issuerJson = JSON.stringify(issuer);
  // The claims' UTF-8 bytes, written into one buffer every token reuses (grown for a longer URL):
  // a Buffer and a JSON.stringify of an object per token were a third of signing's JavaScript time.
  let claimBytes = Buffer.allocUnsafe(1024);
  return (url, body) => {
    const iat = Math.floor(now() / 1000);
    // Byte for byte what JSON.stringify({ iss, sub, iat, nbf, exp, jti, body }) writes; the digest is base64url.
    const claims = `{"iss":${issuerJson},"sub":${JSON.stringify(url)},"iat":${iat},"nbf":${iat},"exp":${iat + DEFAULT_SIGNATURE_TTL_SECONDS},"jti":${JSON.stringify(jti())},"body":"${digest(body)}"}`;
    // A UTF-16 code unit is at most 3 bytes of UTF-8.
    if (claims.length * 3 > claimBytes.length) claimBytes = Buffer.allocUnsafe(claims.length * 3);
    const input = `${HEADER}.${claimBytes.toString('base64url', 0, claimBytes.write(claims))}`;
    const token = `${input}.${nodeCrypto.createHmac('sha256', key).update(input).digest('base64url')}`;
    if (token.length > MAX_TOKEN_LENGTH) {
      throw new RangeError(`the URL makes the signature ${token.length} characters long; receivers accept at most ${MAX_TOKEN_LENGTH}`);
    }
    return token;
  };
}

/** Token ids like `sign`'s, `jwt_` + 32 random hex digits, from random bytes drawn for 256 ids at a time. */
function randomTokenIds(Buffer: NodeBuiltins['Buffer']): () => string {
  const pool = Buffer.allocUnsafe(16 * 256);
  let used = pool.length;
  return () => {
    if (used === pool.length) {
      crypto.getRandomValues(pool);
      used = 0;
    }
    used += 16;
    return `jwt_${pool.toString('hex', used - 16, used)}`;
  };
}

const BAD_SIGNATURE: Failure = fail('bad-signature', 'the token signature does not match this key');

interface NodeKey {
  readonly slot: SigningKeySlot;
  readonly key: KeyObject;
}

/**
 * The synchronous verifier over node:crypto: an HMAC and a SHA-256 are a little native work, and
 * awaiting Web Crypto's promises costs far more than that. Parsing and claim checks are the shared
 * ones, so its verdicts equal the jose path's.
 *
 * The modules are passed in (see loadNodeBuiltins) rather than imported, so this file has no import
 * of node:crypto that a bundler could trip over.
 */
export function createNodeVerifier(config: VerifierConfig, builtins: NodeBuiltins): NodeVerifier {
  const { crypto: nodeCrypto, Buffer } = builtins;
  const encoder = new TextEncoder();
  // A KeyObject is imported once; passing the string to createHmac would re-encode it on every call.
  const keys: readonly NodeKey[] = config.keys.map((key) => ({
    slot: key.slot,
    key: nodeCrypto.createSecretKey(encoder.encode(key.secret)),
  }));
  const sha256 = digestFunction(builtins);
  // Buffer's native decoder is several times faster than a JS loop; isBase64url first, because
  // Buffer silently skips characters it does not know and accepts `+`, `/` and `=`.
  const decode: SegmentDecoder = (segment) => (isBase64url(segment) ? Buffer.from(segment, 'base64url') : undefined);

  function signatureMatches(key: KeyObject, token: ParsedToken): boolean {
    // Strings, not Buffers: see constantTimeEqual. The segment is canonical base64url (parseToken),
    // so string equality is byte equality.
    return constantTimeEqual(nodeCrypto.createHmac('sha256', key).update(token.signingInput).digest('base64url'), token.signature);
  }

  function checkBody(claims: SignatureClaims, rawBody: Uint8Array | string): Failure | undefined {
    return bodyClaimMatches(claims.body, sha256(rawBody)) ? undefined : BODY_MISMATCH;
  }

  function checkAfterSignature(token: ParsedToken, rawBody: Uint8Array | string, expected: ClaimExpectations): SignatureClaims | Failure {
    const claims = checkClaims(token.payload, expected);
    return isFailure(claims) ? claims : (checkBody(claims, rawBody) ?? claims);
  }

  // The key whose signature matched last is tried first. During a rotation, until the app is given
  // the new keys, every delivery is signed with the next key: without this each one would pay for
  // two HMACs. Only the work changes, never the answer: the keys
  // are distinct (resolveVerifierConfig), so at most one can match, and the verdict and `attempts`
  // below are exactly those of trying them in their configured order.
  let preferred = 0;

  function matchingKey(token: ParsedToken): number {
    for (let tried = 0; tried < keys.length; tried++) {
      const index = (preferred + tried) % keys.length;
      if (signatureMatches(keys[index]!.key, token)) return index;
    }
    return -1;
  }

  // A failed check is returned, not thrown: a rejection then costs one throw in verifySync and none
  // in verify. Only input the token parser cannot read throws on the way (it is caught in `outcome`).
  function verifyOrFail(input: VerifyInput): VerifiedSignature | Error {
    const request = readVerifyInput(input, config);
    const token = parseToken(request.signature, decode);
    const expected = {
      issuer: config.issuer,
      url: request.url,
      nowSeconds: readClockSeconds(config.now),
      toleranceSeconds: config.toleranceSeconds,
    };
    const matched = matchingKey(token);
    if (matched === -1) return rejection(keys.length);
    preferred = matched;
    const outcome = checkAfterSignature(token, request.rawBody, expected);
    return isFailure(outcome) ? rejection(matched, outcome) : { claims: outcome, key: keys[matched]!.slot };
  }

  /**
   * The error of trying the keys in their configured order: each key before `failedAt` failed on its
   * signature, and the key at `failedAt` (whose signature matched) on `failure`; a matching key's
   * outcome is final, as another key cannot do better.
   */
  function rejection(failedAt: number, failure?: Failure): Error {
    const attempts: Attempt[] = [];
    for (let index = 0; index < failedAt; index++) attempts.push({ key: keys[index]!.slot, ...BAD_SIGNATURE });
    if (failure) attempts.push({ key: keys[failedAt]!.slot, ...failure });
    return attemptsError(attempts, config.badSignatureHint);
  }

  function outcome(input: VerifyInput): VerifiedSignature | Error {
    try {
      return verifyOrFail(input);
    } catch (error) {
      return toVerifyError(error);
    }
  }

  function verifySync(input: VerifyInput): VerifiedSignature {
    const result = outcome(input);
    if (result instanceof Error) throw result;
    return result;
  }

  return {
    implementation: 'node',
    verifySync,
    verify: (input) => {
      const result = outcome(input);
      return result instanceof Error ? rejectLater(result) : Promise.resolve(result);
    },
  };
}

/**
 * A promise rejected one microtask from now, by when a caller awaiting `verify` has subscribed to it.
 * `Promise.reject` settles before anyone listens, so Node books every such promise as a possibly
 * unhandled rejection and unbooks it a moment later, work for nothing on every rejected token. A
 * caller that never listens still gets Node's unhandled-rejection report.
 */
function rejectLater(error: Error): Promise<never> {
  return new Promise((_resolve, reject) => queueMicrotask(() => reject(error)));
}

/** SHA-256 as canonical unpadded base64url, the spelling of the `body` claim. */
type Digest = (data: Uint8Array | string) => string;

function digestFunction({ crypto: nodeCrypto }: NodeBuiltins): Digest {
  const { hash } = nodeCrypto;
  // crypto.hash skips the Hash object; it is missing before Node 20.12 and in some Node look-alikes.
  if (typeof hash === 'function') return (data) => hash('sha256', data, 'base64url');
  return (data) => nodeCrypto.createHash('sha256').update(data).digest('base64url');
}
