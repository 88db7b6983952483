import { vi } from 'vitest';
import { runConformanceSuite } from '../src/run-suite';
import { solidStartDevTarget } from '../src/targets/built-apps';

// Each profile starts a dev server of its own, whose first request compiles the app: seconds each on
// a busy 2-core machine.
vi.setConfig({ hookTimeout: 240_000 });
runConformanceSuite(solidStartDevTarget);
