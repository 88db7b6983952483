/// <reference types="vitest/config" />
import { getViteConfig } from 'astro/config';

// Astro's own way to test with vitest: its Vite config, so `astro:env/server` resolves in tests.
// That module reads what Vite loaded when the config was made (.env.test, vitest's mode), not test.env.
export default getViteConfig({});
