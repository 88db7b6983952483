import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The dev console: built with the package into dist/console and served by the dev server at
// /console/. Everything it needs is bundled: no CDN, no network at run time.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  // Quiet: the one warning is core's node:crypto import, on a receiving path the console never runs.
  logLevel: 'error',
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    sourcemap: false,
    target: 'es2022',
    // Two chunks: the page (75 KB) and Mailroom's client (core and its schemas, loaded at the first action).
    chunkSizeWarningLimit: 1000,
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
});
