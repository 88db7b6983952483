import { describe, expect, it } from 'vitest';
import { SignatureError } from '../../src/errors';
import { ValidationError } from '../../src/errors';
import { loadNodeBuiltins } from '../../src/signature/node';
import { DEFAULT_CLOCK_TOLERANCE_SECONDS, createVerifier, type VerifierOptions } from '../../src/signature';
import { BODY, CURRENT_KEY, NEXT_KEY, NOW, OTHER_KEY, URL, forgeToken, validClaims } from './forge-token';

const keys = { currentSigningKey: CURRENT_KEY, nextSigningKey: NEXT_KEY, now: () => NOW * 1000 };

describe('createVerifier options', () => {
  it.each([
    ['options not an object', undefined, ''],
    ['current key not a string', { currentSigningKey: 42 }, 'currentSigningKey'],
    ['next key not a string', { currentSigningKey: CURRENT_KEY, nextSigningKey: {} }, 'nextSigningKey'],
    ['empty issuer', { ...keys, issuer: '' }, 'issuer'],
    ['negative tolerance', { ...keys, clockToleranceSeconds: -1 }, 'clockToleranceSeconds'],
    ['infinite tolerance', { ...keys, clockToleranceSeconds: Number.POSITIVE_INFINITY }, 'clockToleranceSeconds'],
    ['tolerance as a string', { ...keys, clockToleranceSeconds: '5s' }, 'clockToleranceSeconds'],
    ['now not a function', { ...keys, now: NOW * 1000 }, 'now'],
    ['unknown implementation', { ...keys, implementation: 'wasm' }, 'implementation'],
  ])('rejects %s with a ValidationError', (_name, options, path) => {
    expect(() => createVerifier(options as unknown as VerifierOptions)).toThrow(ValidationError);
    try {
      createVerifier(options as unknown as VerifierOptions);
    } catch (error) {
      expect((error as ValidationError).path).toBe(path);
    }
  });

  it('accepts a missing key and reports no-key at verify time', async () => {
    const verifier = createVerifier({});
    const error = await verifier.verify({ signature: forgeToken(), rawBody: BODY }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SignatureError);
    expect((error as SignatureError).reason).toBe('no-key');
    expect((error as SignatureError).message).toMatch(/MAILROOM_CURRENT_SIGNING_KEY/);
  });

  it('uses a 5 second tolerance by default', async () => {
    expect(DEFAULT_CLOCK_TOLERANCE_SECONDS).toBe(5);
    const verifier = createVerifier({ ...keys, now: () => (NOW + 300 + 4) * 1000 });
    await expect(verifier.verify({ signature: forgeToken(), rawBody: BODY, url: URL })).resolves.toMatchObject({ key: 'current' });
  });

  it('treats a clock returning garbage as a configuration error', async () => {
    const verifier = createVerifier({ ...keys, now: () => Number.NaN });
    await expect(verifier.verify({ signature: forgeToken(), rawBody: BODY })).rejects.toThrow(ValidationError);
  });
});

describe('implementation choice', () => {
  it('auto picks node:crypto on Node', () => {
    expect(createVerifier(keys).implementation).toBe('node');
  });

  it('webcrypto can be forced', () => {
    expect(createVerifier({ ...keys, implementation: 'webcrypto' }).implementation).toBe('webcrypto');
  });

  it('the node verifier also verifies synchronously, with the same errors', () => {
    const verifier = createVerifier({ ...keys, implementation: 'node' });
    expect(verifier.verifySync({ signature: forgeToken(), rawBody: BODY, url: URL }).key).toBe('current');
    expect(() => verifier.verifySync({ signature: forgeToken({ key: OTHER_KEY }), rawBody: BODY })).toThrow(SignatureError);
  });

  it('finds node:crypto through process.getBuiltinModule only', () => {
    expect(loadNodeBuiltins()).toBeDefined();
    expect(loadNodeBuiltins({})).toBeUndefined();
    expect(loadNodeBuiltins({ process: { versions: { node: '20.0.0' } } })).toBeUndefined();
  });

  it('falls back when getBuiltinModule throws, as in the Next.js edge sandbox', () => {
    const edgeSandbox = {
      process: {
        getBuiltinModule() {
          throw new Error('A Node.js API is used (process.getBuiltinModule) which is not supported in the Edge Runtime.');
        },
      },
    };
    expect(loadNodeBuiltins(edgeSandbox)).toBeUndefined();
  });

  it('falls back on the edge even if a real getBuiltinModule is reachable', () => {
    expect(loadNodeBuiltins({ EdgeRuntime: 'edge-runtime', process })).toBeUndefined();
  });

  it('falls back when getBuiltinModule returns something that is not node:crypto', () => {
    expect(loadNodeBuiltins({ process: { getBuiltinModule: () => '/path/to/crypto' } })).toBeUndefined();
    expect(loadNodeBuiltins({ process: { getBuiltinModule: () => ({ createHmac: () => undefined }) } })).toBeUndefined();
  });
});

describe.each(['node', 'webcrypto'] as const)('error reporting (%s)', (implementation) => {
  const verifier = createVerifier({ ...keys, implementation });
  const reject = (signature: unknown, rawBody: unknown = BODY) =>
    verifier.verify({ signature, rawBody, url: URL } as never).then(
      () => {
        throw new Error('accepted');
      },
      (error: unknown) => error as SignatureError,
    );

  it('keeps the reason of each key and reports the most informative', async () => {
    const error = await reject(forgeToken({ payload: validClaims({ sub: 'https://other.example/' }), key: NEXT_KEY }));
    expect(error.reason).toBe('subject');
    expect(error.attempts).toEqual([
      expect.objectContaining({ key: 'current', reason: 'bad-signature' }),
      expect.objectContaining({ key: 'next', reason: 'subject' }),
    ]);
    expect(error.message).toContain('current key: bad-signature; next key: subject');
  });

  it('stops at the first key whose signature matched', async () => {
    const error = await reject(forgeToken({ payload: validClaims({ iss: 'Upstash' }) }));
    expect(error.attempts.map((attempt) => attempt.key)).toEqual(['current']);
  });

  it('explains a bad signature without revealing a key, and flags whitespace in a key', async () => {
    const padded = createVerifier({ currentSigningKey: `${CURRENT_KEY}\n`, now: keys.now, implementation });
    const error = (await padded.verify({ signature: forgeToken(), rawBody: BODY }).catch((caught: unknown) => caught)) as SignatureError;
    expect(error.reason).toBe('bad-signature');
    expect(error.message).toMatch(/whitespace/);
    expect(error.message).not.toContain(CURRENT_KEY);
  });

  it('bounds what it echoes from a hostile token', async () => {
    const error = await reject(forgeToken({ payload: validClaims({ iss: 'x'.repeat(5000) }) }));
    expect(error.reason).toBe('issuer');
    expect(error.message.length).toBeLessThan(600);
  });

  it('only ever rejects with SignatureError', async () => {
    const hostile = [
      Symbol('x'),
      () => 1,
      new Proxy(
        {},
        {
          get: () => {
            throw new Error('trap');
          },
        },
      ),
      10n,
      Number.NaN,
    ];
    for (const value of hostile) {
      expect(await reject(value)).toBeInstanceOf(SignatureError);
      expect(await reject(forgeToken(), value)).toBeInstanceOf(SignatureError);
    }
    const trap = new Proxy(
      {},
      {
        get: () => {
          throw new Error('trap');
        },
      },
    );
    await expect(verifier.verify(trap as never)).rejects.toBeInstanceOf(SignatureError);
    await expect(verifier.verify(undefined as never)).rejects.toMatchObject({ reason: 'missing' });
  });
});
