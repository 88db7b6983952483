import adapter from '@sveltejs/adapter-node';

/** @type {import('@sveltejs/kit').Config} */
export default {
  kit: {
    adapter: adapter({ out: 'build' }),
    // The suite sends text/plain deliveries, which SvelteKit's CSRF check refuses without an Origin
    // header (docs/frameworks/sveltekit.md); the app trusts the signature instead.
    csrf: { checkOrigin: false },
  },
};
