// `mailroom dev`: starts the dev server until SIGINT/SIGTERM, then closes it cleanly (the journal is
// compacted and every accepted message is kept for the next start).
import { runCli } from './cli/run-cli';

const result = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
});

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
    process.stdout.write(`\n${signal}: stopping the dev server...\n`);
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`mailroom: error while stopping: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
