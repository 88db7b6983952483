import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createReceiver, defineDestination, SignatureError, type InboundRequest, type ReceiverOptions } from '../../src';
import { signRequest } from '../../src/testing';

// A delivery that names its region in `<Prefix>-Region` is checked with that region's keys (from
// `regions` or `MAILROOM_<REGION>_*` variables), and with the default pair when the region has none.

const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);
const url = 'http://app.test/hook';
const hook = defineDestination({ name: 'hook', path: '/hook', schema: z.string() });
const defaults = { currentSigningKey: 'sig_default_current', nextSigningKey: 'sig_default_next' };

async function delivery(key: string, region?: string): Promise<InboundRequest> {
  const signed = await signRequest({ url, body: 'x', key, now: () => NOW });
  const headers = { ...(signed.headers as Record<string, string>), ...(region ? { 'Service-Region': region } : {}) };
  return { method: 'POST', url: '/hook', headers, rawBody: signed.body };
}

async function outcome(options: ReceiverOptions, request: InboundRequest): Promise<string> {
  const errors: unknown[] = [];
  const receiver = createReceiver({ now: () => NOW, env: {}, ...options, onError: (error) => errors.push(error) });
  const response = await receiver.destination(hook, () => {}).handle(request);
  if (response.status === 200) return 'ok';
  return errors[0] instanceof SignatureError ? 'bad signature' : `status ${response.status}`;
}

describe('regional signing keys', () => {
  it("hands the handler the delivery's region", async () => {
    const regions = { EU_CENTRAL_1: { currentSigningKey: 'sig_eu_current', nextSigningKey: 'sig_eu_next' } };
    const regionsSeen: Array<string | undefined> = [];
    const receiver = createReceiver({ now: () => NOW, env: {}, ...defaults, regions, onError: () => {} });
    const endpoint = receiver.destination(hook, (message) => void regionsSeen.push(message.region));
    await endpoint.handle(await delivery('sig_eu_current', 'eu-central-1'));
    await endpoint.handle(await delivery('sig_default_current'));
    expect(regionsSeen).toEqual(['eu-central-1', undefined]);
  });

  it("uses the region's keys from the options, in either spelling of the region", async () => {
    const regions = { EU_CENTRAL_1: { currentSigningKey: 'sig_eu_current', nextSigningKey: 'sig_eu_next' } };
    expect(await outcome({ ...defaults, regions }, await delivery('sig_eu_current', 'eu-central-1'))).toBe('ok');
    expect(await outcome({ ...defaults, regions }, await delivery('sig_eu_next', 'EU_CENTRAL_1'))).toBe('ok');
    // A regional delivery is not accepted under the default keys once the region has its own.
    expect(await outcome({ ...defaults, regions }, await delivery('sig_default_current', 'eu-central-1'))).toBe('bad signature');
  });

  it('reads MAILROOM_<REGION>_CURRENT_SIGNING_KEY and falls back to the default pair for other regions', async () => {
    const env = { MAILROOM_US_EAST_1_CURRENT_SIGNING_KEY: 'sig_us' };
    expect(await outcome({ ...defaults, env }, await delivery('sig_us', 'us-east-1'))).toBe('ok');
    expect(await outcome({ ...defaults, env }, await delivery('sig_default_current', 'ap-south-1'))).toBe('ok');
    expect(await outcome({ ...defaults, env }, await delivery('sig_default_next'))).toBe('ok');
    expect(await outcome({ ...defaults, env }, await delivery('sig_us'))).toBe('bad signature');
  });

  it('verifies with region keys alone when no default pair is configured', async () => {
    const env = { MAILROOM_EU_CENTRAL_1_CURRENT_SIGNING_KEY: 'sig_eu' };
    expect(await outcome({ env }, await delivery('sig_eu', 'eu-central-1'))).toBe('ok');
    expect(await outcome({ env }, await delivery('sig_eu'))).toBe('status 500');
  });

  it('ignores a malformed region header and uses the default pair', async () => {
    expect(await outcome(defaults, await delivery('sig_default_current', 'eu central!'))).toBe('ok');
  });

  it('refuses malformed regions option', () => {
    expect(() => createReceiver({ ...defaults, env: {}, onError: () => {}, regions: { 'eu central': {} } })).toThrow(/Invalid region/);
  });
});
