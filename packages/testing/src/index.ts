// @mailroom/testing: the service in-process for tests. The same engine as `mailroom dev` (retries,
// callbacks, the DLQ, queues, flow control, schedules, workflows), on a clock the test moves, with
// deliveries made to the app under test in-process and faults on demand.

export { createTestService, type TestService } from './test-service';
export type { Attempt } from './recording';
export type { TestServiceOptions } from './settings';
export type { FetchHandler, NodeListener, RouteModule, TestApp } from './app';
export type { Fault, FaultScope, FaultTarget, Faults } from './faults';
export { explore, ExploreError, type ExploreOptions, type ExploreReport, type Freedoms } from './explore';
export { matchers, type MailroomMatchers } from './matchers';
export type { Replayed, ReplayedRun, ReplayOptions } from './replay';
export type { MessageFixture, RecordedAttempt, RunFixture } from '@mailroom/dev-server/internal-embedded';
