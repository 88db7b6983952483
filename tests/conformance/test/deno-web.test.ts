import { runConformanceSuite } from '../src/run-suite';
import { denoWebTarget } from '../src/runtimes/runtime-target';

runConformanceSuite(denoWebTarget);
