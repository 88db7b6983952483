import { runConformanceSuite } from '../src/run-suite';
import { expressExceptDeliveriesTarget } from '../src/targets/express';

runConformanceSuite(expressExceptDeliveriesTarget);
