// What the test suites need of the machine: Debian packages installed on first use, and the real
// servers (Redis, Postgres) tests run against.
export { aptInstall } from './apt';
export { type RealServer, startPostgres, startRedis } from './servers';
