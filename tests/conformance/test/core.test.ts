import { runConformanceSuite } from '../src/run-suite';
import { coreTarget } from '../src/targets/core';

runConformanceSuite(coreTarget);
