import { vi } from 'vitest';
import { runConformanceSuite } from '../src/run-suite';
import { tanStackStartBuildTarget } from '../src/targets/built-apps';

// The first profile's start builds the app: a minute on a busy 2-core machine.
vi.setConfig({ hookTimeout: 240_000 });
runConformanceSuite(tanStackStartBuildTarget);
