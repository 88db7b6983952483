import { isolatedTestConfig } from '../../vitest.shared';

export default isolatedTestConfig;
