import { describe, expect, it } from 'vitest';
import { SignatureError } from '../../src/errors';
import { createVerifier, type VerifierImplementation, type VerifyInput } from '../../src/signature';
import { BODY, CURRENT_KEY, NEXT_KEY, NOW, URL } from './forge-token';
import { VECTORS, type VerifyCase } from './vectors';

/** Runs one case; returns 'ok' details or the SignatureError. Any other throw fails the test. */
async function runCase(implementation: VerifierImplementation, testCase: VerifyCase) {
  const verifier = createVerifier({
    currentSigningKey: CURRENT_KEY,
    nextSigningKey: NEXT_KEY,
    now: () => testCase.nowMs ?? NOW * 1000,
    implementation,
    ...testCase.options,
  });
  const input = {
    signature: testCase.signature,
    rawBody: 'rawBody' in testCase ? testCase.rawBody : BODY,
    ...(testCase.omitUrl ? {} : { url: 'url' in testCase ? testCase.url : URL }),
  } as VerifyInput;
  try {
    return { ok: true as const, result: await verifier.verify(input) };
  } catch (error) {
    if (!(error instanceof SignatureError)) throw error;
    return { ok: false as const, error };
  }
}

describe.each(['node', 'webcrypto'] as const)('signature vectors (%s)', (implementation) => {
  it.each(VECTORS.map((vector) => [vector.name, vector] as const))('%s', async (_name, vector) => {
    const outcome = await runCase(implementation, vector.build());
    if (vector.expected === 'ok') {
      if (!outcome.ok) throw new Error(`expected ok, got ${outcome.error.reason}: ${outcome.error.message}`);
      expect(outcome.result.key).toBe(vector.key ?? 'current');
      expect(Object.keys(outcome.result.claims).sort()).toEqual(['body', 'exp', 'iat', 'iss', 'jti', 'nbf', 'sub']);
      return;
    }
    if (outcome.ok) throw new Error(`expected ${vector.expected}, got ok`);
    expect({ reason: outcome.error.reason, message: outcome.error.message }).toMatchObject({ reason: vector.expected });
    if (vector.attempts) expect(outcome.error.attempts.map((attempt) => attempt.reason)).toEqual(vector.attempts);
    expect(outcome.error.message).not.toContain(CURRENT_KEY);
    expect(outcome.error.message).not.toContain(NEXT_KEY);
    expect(outcome.error.attempts.every((attempt) => !attempt.detail.includes(CURRENT_KEY) && !attempt.detail.includes(NEXT_KEY))).toBe(
      true,
    );
  });
});
