import { runConformanceSuite } from '../src/run-suite';
import { bunTarget } from '../src/runtimes/runtime-target';

runConformanceSuite(bunTarget);
