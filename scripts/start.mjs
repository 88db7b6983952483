#!/usr/bin/env node
// `npm start`: the main job. The root script has already built the dev server and the Express example
// (turbo, cached after the first run); the tour starts both and walks through sends and receives.
// `--tour-only` (or CI=true) runs the tour once and exits 0 only when every scene behaved.
await import('./tour.mjs');
