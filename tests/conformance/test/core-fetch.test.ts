import { runConformanceSuite } from '../src/run-suite';
import { coreFetchTarget } from '../src/targets/core';

runConformanceSuite(coreFetchTarget);
