import { runConformanceSuite } from '../src/run-suite';
import { lambdaRestApiTarget } from '../src/targets/lambda';

runConformanceSuite(lambdaRestApiTarget);
