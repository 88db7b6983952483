import { runConformanceSuite } from '../src/run-suite';
import { denoTarget } from '../src/runtimes/runtime-target';

runConformanceSuite(denoTarget);
