import { describe, expect, it } from 'vitest';
import { BASE_OPTIONS, ORDER, orderPlaced, PUBLIC_URL, PATHS, UNKNOWN_KEY, utf8 } from '../fixtures';
import { tokenWithAlgorithm, unsignedToken, validClaims } from './support/forged-tokens';
import { expectAccepted, expectNoHandlerCalled, expectSignatureRefused } from './support/expectations';
import { useTarget, withToken, type Harness } from './support/harness';
import type { ConformanceTarget } from '../target';

const ORDER_BYTES = utf8(JSON.stringify(ORDER));

/** Who may deliver: keys, algorithms, body hash, clock and URL. */
export function signatureCases(main: Harness, target: ConformanceTarget): void {
  describe('signature', () => {
    keyCases(main);
    tokenShapeCases(main);
    bodyHashCases(main);
    clockCases(main);
  });
  describe('signature bound to the endpoint (no publicUrl)', () => endpointBindingCases(main));
  describe('signature with allowAnyPath', () => allowAnyPathCases(target));
  describe('signature with publicUrl', () => publicUrlCases(target));
  describe('no signing key configured', () => unconfiguredCases(target));
}

function keyCases(h: Harness): void {
  it('accepts a delivery signed with the current key', async () => {
    expectAccepted(await h.deliver({ body: ORDER }));
    expect(h.destination).toHaveBeenCalledOnce();
    expect(h.received().signature?.key).toBe('current');
  });

  it('accepts a delivery signed with the next key (key rotation)', async () => {
    expectAccepted(await h.deliver({ body: ORDER, signWith: 'next' }));
    expect(h.received().signature?.key).toBe('next');
  });

  it('refuses a token signed with a key it does not know', async () => {
    expectSignatureRefused(await h.deliver({ body: ORDER, key: UNKNOWN_KEY }), h, 'bad-signature');
  });

  it('refuses a token from another issuer', async () => {
    expectSignatureRefused(await h.deliver({ body: ORDER, issuer: 'SomeoneElse' }), h, 'issuer');
  });
}

function tokenShapeCases(h: Harness): void {
  it('refuses a delivery without a signature header', async () => {
    expectSignatureRefused(await h.deliver({ body: ORDER, editHeaders: withToken(h.headerPrefix, undefined) }), h, 'missing');
  });

  it('refuses a garbage token', async () => {
    expectSignatureRefused(await h.deliver({ body: ORDER, editHeaders: withToken(h.headerPrefix, 'not-a.jwt-at.all!') }), h, 'malformed');
  });

  it('refuses an "alg: none" token', async () => {
    const token = unsignedToken(validClaims(h.url('destination'), ORDER_BYTES));
    expectSignatureRefused(await h.deliver({ body: ORDER, editHeaders: withToken(h.headerPrefix, token) }), h, 'algorithm');
  });

  it('refuses an HS512 token even when signed with the current key', async () => {
    const token = tokenWithAlgorithm('HS512', 'sha512', validClaims(h.url('destination'), ORDER_BYTES));
    expectSignatureRefused(await h.deliver({ body: ORDER, editHeaders: withToken(h.headerPrefix, token) }), h, 'algorithm');
  });

  it('refuses an RS256 header over an HMAC signature (algorithm confusion)', async () => {
    const token = tokenWithAlgorithm('RS256', 'sha256', validClaims(h.url('destination'), ORDER_BYTES));
    expectSignatureRefused(await h.deliver({ body: ORDER, editHeaders: withToken(h.headerPrefix, token) }), h, 'algorithm');
  });
}

function bodyHashCases(h: Harness): void {
  it('refuses a body with one byte changed', async () => {
    const changed = ORDER_BYTES.slice();
    const index = changed.indexOf(0x31); // a '1' of the order id
    changed[index] = 0x32;
    expectSignatureRefused(await h.deliver({ body: ORDER, sendBody: changed }), h, 'body-hash');
  });

  it('refuses JSON equal in meaning but not in bytes (re-serialised)', async () => {
    // What a framework that parsed and re-stringified the body would produce: same data, other bytes.
    const reserialised = utf8(`{ "total": ${ORDER.total}, "orderId": "${ORDER.orderId}" }`);
    expect(JSON.parse(new TextDecoder().decode(reserialised))).toEqual(ORDER);
    expectSignatureRefused(await h.deliver({ body: ORDER, sendBody: reserialised }), h, 'body-hash');
  });

  it('refuses a token signed over another body (signRequest tampered)', async () => {
    expectSignatureRefused(await h.deliver({ body: ORDER, tampered: true }), h, 'body-hash');
  });
}

function clockCases(h: Harness): void {
  it('refuses an expired token', async () => {
    expectSignatureRefused(await h.deliver({ body: ORDER, expired: 60 }), h, 'expired');
  });

  it('refuses a token that is not yet valid', async () => {
    expectSignatureRefused(await h.deliver({ body: ORDER, notYetValid: 60 }), h, 'not-yet-valid');
  });

  it('accepts a token expired by less than the clock tolerance', async () => {
    expectAccepted(await h.deliver({ body: ORDER, expired: 20 }));
    expect(h.destination).toHaveBeenCalledOnce();
  });

  it('accepts a token not yet valid by less than the clock tolerance', async () => {
    expectAccepted(await h.deliver({ body: ORDER, notYetValid: 20 }));
    expect(h.destination).toHaveBeenCalledOnce();
  });
}

function endpointBindingCases(h: Harness): void {
  it('refuses a token signed for another endpoint of the same app with 401 (no replay across endpoints)', async () => {
    expectSignatureRefused(await h.deliver({ body: ORDER, signedUrl: h.url('callback') }), h, 'subject');
  });

  it('refuses a token signed for a path that only shares a prefix', async () => {
    expectSignatureRefused(await h.deliver({ body: ORDER, signedUrl: `${h.url('destination')}/more` }), h, 'subject');
  });

  it('accepts a token signed for the same path on another host (the public name behind a proxy)', async () => {
    expectAccepted(
      await h.deliver({ body: ORDER, signedUrl: `https://public-name.example${h.pathPrefix()}${PATHS.destination}?via=proxy` }),
    );
  });

  it('names both paths and the fixes in the reason it reports', async () => {
    await h.deliver({ body: ORDER, signedUrl: h.url('callback') });
    const [error] = h.onError.mock.calls[0] ?? [];
    expect(String((error as Error | undefined)?.message)).toContain(PATHS.callback);
    expect(String((error as Error | undefined)?.message)).toContain(PATHS.destination);
    expect(String((error as Error | undefined)?.message)).toMatch(/publicUrl.*allowAnyPath/);
  });
}

function allowAnyPathCases(target: ConformanceTarget): void {
  const h = useTarget(target, { name: 'allowAnyPath', options: { allowAnyPath: true } });

  it('accepts a token signed for another path only when the app opted out explicitly', async () => {
    expectAccepted(await h.deliver({ body: ORDER, signedUrl: h.url('callback') }));
  });
}

function publicUrlCases(target: ConformanceTarget): void {
  // Behind a proxy the app cannot know the URL the service called; with publicUrl it checks `sub`.
  const h = useTarget(target, { name: 'publicUrl', options: { publicUrl: PUBLIC_URL } });

  it('accepts a token signed for publicUrl + path', async () => {
    expectAccepted(await h.deliver({ body: ORDER }));
    expect(h.received().signature?.claims.sub).toBe(PUBLIC_URL + PATHS.destination);
  });

  it('refuses a token signed for another endpoint of the same app', async () => {
    expectSignatureRefused(await h.deliver({ body: ORDER, signedUrl: PUBLIC_URL + PATHS.callback }), h, 'subject');
  });

  // The token names the query as the service called it; a framework that rebuilds the URL
  // (React Router's request rewrite, a Lambda event's parsed parameters) must not re-encode it.
  it('accepts a token signed for publicUrl + path + a query a framework may re-encode', async () => {
    const query = '?note=a%20b&flag&tag=x%2Cy';
    expectAccepted(await h.deliver({ body: ORDER, query }));
    expect(h.received().signature?.claims.sub).toBe(PUBLIC_URL + PATHS.destination + query);
  });

  it('refuses a token signed for the same path with another query', async () => {
    const signedUrl = `${PUBLIC_URL}${PATHS.destination}?note=a%20c&flag&tag=x%2Cy`;
    expectSignatureRefused(await h.deliver({ body: ORDER, query: '?note=a%20b&flag&tag=x%2Cy', signedUrl }), h, 'subject');
  });

  it('refuses a token signed for another host with the same path', async () => {
    expectSignatureRefused(await h.deliver({ body: ORDER, signedUrl: `https://evil.example.net${PATHS.destination}` }), h, 'subject');
  });
}

function unconfiguredCases(target: ConformanceTarget): void {
  if (target.quirks?.failsAtStartupWithoutKeys) {
    it('refuses to start without a signing key, naming MAILROOM_CURRENT_SIGNING_KEY', async () => {
      const started = target.start({
        options: { ...BASE_OPTIONS, currentSigningKey: undefined, nextSigningKey: undefined, onError: () => {} },
        destination: { definition: orderPlaced, handler: () => {} },
        callback: () => {},
        failureCallback: () => {},
        callbackOptions: {},
        failureCallbackOptions: { source: orderPlaced },
        paths: { ...PATHS },
      });
      await expect(started).rejects.toThrow(/MAILROOM_CURRENT_SIGNING_KEY/);
    });
    return;
  }
  // Fail closed: an app deployed without its keys must refuse loudly, never accept unverified.
  const h = useTarget(target, { name: 'no keys', options: { currentSigningKey: undefined, nextSigningKey: undefined } });

  it('answers 500 naming MAILROOM_CURRENT_SIGNING_KEY and calls no handler', async () => {
    const response = await h.deliver({ body: ORDER });
    expect(response.status).toBe(500);
    expect(response.body).toContain('MAILROOM_CURRENT_SIGNING_KEY');
    expectNoHandlerCalled(h);
    expect(h.stages()).toEqual(['config']);
  });

  it('also refuses an unsigned delivery with 500, not 401 or 200', async () => {
    const response = await h.deliver({ body: ORDER, editHeaders: withToken(h.headerPrefix, undefined) });
    expect(response.status).toBe(500);
    expectNoHandlerCalled(h);
  });
}
