// A CommonJS user of the dev server (NestJS and Jest apps are CommonJS): the console must be served.
const { startDevServer } = require('@mailroom/dev-server');

async function main() {
  const server = await startDevServer({ port: 0, log: 'silent' });
  try {
    const page = await fetch(`${server.url}/console/`);
    const html = await page.text();
    const script = html.match(/src="([^"]+\.js)"/)?.[1];
    const asset = script ? (await fetch(new URL(script, server.url))).status : 0;
    console.log(`REPORT ${JSON.stringify({ page: page.status, asset })}`);
  } finally {
    await server.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
