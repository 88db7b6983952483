// What the test suites need of the machine: Debian packages installed on first use, the real
// servers (Redis, Postgres) tests run against, and a TCP relay on loopback.
export { aptInstall, ensureChromium } from './apt.mjs';
export { startTcpRelay, type TcpRelay } from './relay';
export { type RealServer, startPostgres, startRedis } from './servers';
