import { runConformanceSuite } from '../src/run-suite';
import { express5Target } from '../src/targets/express';

runConformanceSuite(express5Target);
