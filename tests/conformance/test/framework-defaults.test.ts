import { describe, expect, it, vi } from 'vitest';
import { expectAccepted, expectNoHandlerCalled } from '../src/cases/support/expectations';
import { useTarget } from '../src/cases/support/harness';
import { ORDER, PATHS } from '../src/fixtures';
import { ASTRO_PRERENDERED_PATH, astroDefaultsTarget, svelteKitDefaultsTarget } from '../src/targets/built-apps';

// The traps docs/frameworks/sveltekit.md and astro.md name, shown on a second production build with
// the framework's defaults: what a user meets before changing the setting the pages recommend.

vi.setConfig({ hookTimeout: 240_000 });

describe.each([
  ['SvelteKit', svelteKitDefaultsTarget],
  ['Astro', astroDefaultsTarget],
])('%s with its cross-site POST check on', (_name, target) => {
  const h = useTarget(target, { name: 'default' });

  it('refuses a text/plain delivery with 403 before Mailroom runs, however well signed', async () => {
    const response = await h.deliver({ body: 'plain text', contentType: 'text/plain' });
    expect(response.status).toBe(403);
    expectNoHandlerCalled(h);
    expect(h.onError).not.toHaveBeenCalled();
  });

  it('delivers JSON, which the check lets through (what send does)', async () => {
    expectAccepted(await h.deliver({ body: ORDER }));
    expect(h.received().body).toEqual(ORDER);
  });
});

describe('Astro: an API route without prerender = false', () => {
  const h = useTarget(astroDefaultsTarget, { name: 'default' });

  it('is prerendered at build time, so a POST to it is a 404 that never reaches its code', async () => {
    const response = await fetch(h.url('destination').replace(PATHS.destination, ASTRO_PRERENDERED_PATH), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain('reached');
  });
});
