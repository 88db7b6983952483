import { runBadInputSuite } from '../../src/bad-input/run-bad-input-suite';
import { nextPagesTarget } from '../../src/targets/next';

runBadInputSuite(nextPagesTarget);
