import { runConformanceSuite } from '../src/run-suite';
import { elysiaTarget } from '../src/runtimes/runtime-target';

runConformanceSuite(elysiaTarget);
