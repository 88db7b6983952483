// `mailroom dev`: starts the dev server until SIGINT/SIGTERM, then closes it cleanly (the journal is
// compacted and every accepted message is kept for the next start).
import { runCli } from './run-cli';
import { lineWriter } from '../events';

const out = lineWriter(process.stdout);
const err = lineWriter(process.stderr);
const result = await runCli(process.argv.slice(2), { out, err });

if ('exitCode' in result) {
  process.exitCode = result.exitCode;
} else {
  const { server } = result;
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      // A second Ctrl+C means "now": the journal already holds every accepted message.
      process.exit(130);
    }
    stopping = true;
    out(`\n${signal}: stopping the dev server...`);
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        err(`mailroom: error while stopping: ${String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
