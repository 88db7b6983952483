import { runConformanceSuite } from '../src/run-suite';
import { lambdaAlbTarget } from '../src/targets/lambda';

runConformanceSuite(lambdaAlbTarget);
