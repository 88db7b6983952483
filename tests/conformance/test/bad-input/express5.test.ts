import { runBadInputSuite } from '../../src/bad-input/run-bad-input-suite';
import { express5Target } from '../../src/targets/express';

runBadInputSuite(express5Target);
