import { runConformanceSuite } from '../src/run-suite';
import { nestNoBodyParserTarget, nestRawBodyTarget } from '../src/targets/nestjs';

runConformanceSuite(nestRawBodyTarget);
runConformanceSuite(nestNoBodyParserTarget);
