export { createVerifier } from './verifier';
export { sign, DEFAULT_SIGNATURE_TTL_SECONDS, type SignOptions } from './sign';
export { bodyHash } from './token';
export { MAX_TOKEN_LENGTH } from './token';
export { DEFAULT_CLOCK_TOLERANCE_SECONDS, DEFAULT_ISSUER } from './claims';
export type {
  NodeVerifier,
  SignatureClaims,
  SigningKeySlot,
  VerifiedSignature,
  Verifier,
  VerifierImplementation,
  VerifierOptions,
  VerifyInput,
} from './claims';
