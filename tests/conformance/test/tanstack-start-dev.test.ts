import { vi } from 'vitest';
import { runConformanceSuite } from '../src/run-suite';
import { tanStackStartDevTarget } from '../src/targets/built-apps';

// The first profile's start starts the dev server: a minute on a busy 2-core machine.
vi.setConfig({ hookTimeout: 240_000 });
runConformanceSuite(tanStackStartDevTarget);
