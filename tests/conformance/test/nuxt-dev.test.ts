import { vi } from 'vitest';
import { runConformanceSuite } from '../src/run-suite';
import { nuxtDevServerTarget } from '../src/targets/built-apps';

// The first profile's start loads Nuxt in dev mode and builds it: a minute on a busy 2-core machine.
vi.setConfig({ hookTimeout: 240_000 });
runConformanceSuite(nuxtDevServerTarget);
