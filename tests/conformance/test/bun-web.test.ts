import { runConformanceSuite } from '../src/run-suite';
import { bunWebTarget } from '../src/runtimes/runtime-target';

runConformanceSuite(bunWebTarget);
