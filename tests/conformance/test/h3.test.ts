import { runConformanceSuite } from '../src/run-suite';
import { h3Target } from '../src/targets/h3';

runConformanceSuite(h3Target);
