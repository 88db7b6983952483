// `mailroom dev`: starts the dev server until SIGINT/SIGTERM, then closes it cleanly (the journal is
// compacted and every accepted message is kept for the next start).
import { createInterface } from 'node:readline/promises';
import { lineWriter } from '../events';

const out = lineWriter(process.stdout);
const err = lineWriter(process.stderr);
const argv = process.argv.slice(2);

// `mailroom dev` runs the server; every other command talks to a service and exits. Each loads only
// its own half: a command that only calls the service starts without the server's modules.
const result =
  argv[0] === 'dev'
    ? await (await import('./run-cli')).runCli(argv, { out, err })
    : {
        exitCode: await (await import('./service-commands')).runServiceCommand(
          argv,
          { out, err },
          {
            env: process.env,
            interactive: process.stdin.isTTY === true && process.stdout.isTTY === true,
            ask: async (question) => {
              const prompt = createInterface({ input: process.stdin, output: process.stdout });
              const answer = await prompt.question(question);
              prompt.close();
              return /^y(es)?$/i.test(answer.trim());
            },
            readStdin: async () => {
              if (process.stdin.isTTY) throw new Error("no body: pipe one in (echo '{...}' | mailroom publish <url>), or give --file");
              const chunks: Buffer[] = [];
              for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
              return Buffer.concat(chunks).toString('utf8');
            },
          },
        ),
      };

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
