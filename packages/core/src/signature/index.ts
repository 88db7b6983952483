export { createVerifier } from './create-verifier';
export { sign, DEFAULT_SIGNATURE_TTL_SECONDS, type SignOptions } from './sign';
export { bodyHash } from './body-hash';
export { MAX_TOKEN_LENGTH } from './parse-token';
export { DEFAULT_CLOCK_TOLERANCE_SECONDS, DEFAULT_ISSUER } from './verifier-config';
export type {
  NodeVerifier,
  SignatureClaims,
  SigningKeySlot,
  VerifiedSignature,
  Verifier,
  VerifierImplementation,
  VerifierOptions,
  VerifyInput,
} from './verifier-types';
