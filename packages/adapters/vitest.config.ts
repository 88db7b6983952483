import { sharedTestConfig } from '../../vitest.shared';

export default sharedTestConfig;
