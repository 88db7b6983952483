import { runConformanceSuite } from '../src/run-suite';
import { express4Target } from '../src/targets/express';

runConformanceSuite(express4Target);
