import { runConformanceSuite } from '../src/run-suite';
import { elysiaParsedFirstTarget } from '../src/runtimes/runtime-target';

runConformanceSuite(elysiaParsedFirstTarget);
