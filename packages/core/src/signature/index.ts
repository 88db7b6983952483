export { createVerifier } from './verifier';
export { sign, DEFAULT_SIGNATURE_TTL_SECONDS, type SignOptions } from './sign';
export { bodyHash } from './token';
export { DEFAULT_CLOCK_TOLERANCE_SECONDS } from './claims';
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
