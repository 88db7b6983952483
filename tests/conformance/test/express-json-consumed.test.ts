import { runConformanceSuite } from '../src/run-suite';
import { expressJsonConsumedTarget } from '../src/targets/express';

runConformanceSuite(expressJsonConsumedTarget);
