import { runBadInputSuite } from '../../src/bad-input/run-bad-input-suite';
import { nestNoBodyParserTarget, nestRawBodyTarget } from '../../src/targets/nestjs';

runBadInputSuite(nestRawBodyTarget);
runBadInputSuite(nestNoBodyParserTarget);
