import { runConformanceSuite } from '../src/run-suite';
import { expressJsonVerifyTarget } from '../src/targets/express';

runConformanceSuite(expressJsonVerifyTarget);
