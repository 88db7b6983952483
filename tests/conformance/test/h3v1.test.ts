import { runConformanceSuite } from '../src/run-suite';
import { h3v1PlainTarget } from '../src/targets/h3';

runConformanceSuite(h3v1PlainTarget);
