import { runConformanceSuite } from '../src/run-suite';
import { workerdTarget } from '../src/runtimes/runtime-target';

runConformanceSuite(workerdTarget);
