import { runConformanceSuite } from '../src/run-suite';
import { nextPagesTarget } from '../src/targets/next';

runConformanceSuite(nextPagesTarget);
