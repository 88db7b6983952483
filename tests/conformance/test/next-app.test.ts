import { runConformanceSuite } from '../src/run-suite';
import { nextAppTarget } from '../src/targets/next';

runConformanceSuite(nextAppTarget);
