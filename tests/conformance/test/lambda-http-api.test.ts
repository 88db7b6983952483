import { runConformanceSuite } from '../src/run-suite';
import { lambdaHttpApiTarget } from '../src/targets/lambda';

runConformanceSuite(lambdaHttpApiTarget);
