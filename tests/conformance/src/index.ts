export type { ConformanceTarget, RunningTarget, TargetQuirks, TargetRequest, TargetResponse, TargetSetup } from './target';
export { runConformanceSuite, CASE_THEMES, type CaseTheme, type SuiteOptions } from './run-suite';
export { coreTarget, coreFetchTarget } from './targets/core';
export * as fixtures from './fixtures';
