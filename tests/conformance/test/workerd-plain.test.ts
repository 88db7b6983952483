import { runConformanceSuite } from '../src/run-suite';
import { workerdPlainTarget } from '../src/runtimes/runtime-target';

runConformanceSuite(workerdPlainTarget);
