/** The claims of a verified `<Prefix>-Signature` token. Times are Unix seconds. */
export interface SignatureClaims {
  /** Issuer: the configured `issuer` (`Service` by default, `Upstash` on the real service). */
  readonly iss: string;
  /** Subject: the destination URL the service delivered to. */
  readonly sub: string;
  readonly iat: number;
  readonly nbf: number;
  readonly exp: number;
  /** Token id (`jwt_...`); usable to spot a replayed delivery. */
  readonly jti: string;
  /** base64url(SHA-256(raw body)), exactly as it appeared in the token (padded or not). */
  readonly body: string;
}

/** Which configured key produced the signature. */
export type SigningKeySlot = 'current' | 'next';

/** What `verify` returns when every check passed. */
export interface VerifiedSignature {
  readonly claims: SignatureClaims;
  readonly key: SigningKeySlot;
}

/** One inbound request, as far as the signature is concerned. */
export interface VerifyInput {
  /** The `<Prefix>-Signature` header value. Anything but a non-empty string is rejected. */
  readonly signature: unknown;
  /** The exact bytes received (a string is hashed as UTF-8). Never re-serialised JSON. */
  readonly rawBody: Uint8Array | string;
  /**
   * The URL the service was asked to deliver to. When given, the `sub` claim must equal it exactly
   * (no trailing-slash, case or query normalisation). When omitted the subject is not checked.
   */
  readonly url?: string;
}

/** Which code path verifies: node:crypto (synchronous, fast) or jose over Web Crypto (any runtime). */
export type VerifierImplementation = 'node' | 'webcrypto';

export interface VerifierOptions {
  /** The current signing key (`sig_...`). Empty or absent counts as "not configured". */
  readonly currentSigningKey?: string | undefined;
  /** The next signing key, tried when the current one does not match (key rotation). */
  readonly nextSigningKey?: string | undefined;
  /** Expected `iss` claim. Default `Service`; the real service uses `Upstash`. */
  readonly issuer?: string | undefined;
  /**
   * Seconds of clock skew allowed on `nbf`, `iat` and `exp`. Default 5: tokens carry `nbf = iat =`
   * the signing second, so a receiver whose clock runs even one second behind the service would
   * otherwise reject fresh deliveries as "not yet valid".
   */
  readonly clockToleranceSeconds?: number | undefined;
  /** Clock in Unix milliseconds, like `Date.now` (the default). Injected by tests. */
  readonly now?: (() => number) | undefined;
  /**
   * `auto` (default) uses node:crypto when the runtime offers it (Node, Bun, Deno) and jose over Web
   * Crypto otherwise (edge, workers). Both give the same verdict on every input.
   */
  readonly implementation?: 'auto' | VerifierImplementation | undefined;
}

export interface Verifier {
  /** The implementation `auto` chose, for logs and tests. */
  readonly implementation: VerifierImplementation;
  /**
   * Resolves with the claims and the matching key, or rejects with a `SignatureError` whose `reason`
   * names the failed check. It never rejects with anything else, whatever the input.
   */
  verify(input: VerifyInput): Promise<VerifiedSignature>;
}

/** The node:crypto verifier also verifies synchronously, saving the promise on hot paths. */
export interface NodeVerifier extends Verifier {
  readonly implementation: 'node';
  /** Same checks and errors as `verify`, thrown synchronously. */
  verifySync(input: VerifyInput): VerifiedSignature;
}
