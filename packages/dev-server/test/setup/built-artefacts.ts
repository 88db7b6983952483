import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Some tests use what the build makes: the `mailroom` bin runs dist/cli.js, the console is served
// from dist/console, and dev mode imports the package (dist/index.js). Without them those tests would
// fail on a 404 or an exit code; this says what is missing and how to make it, once, before any test.
const NEEDED = ['dist/index.js', 'dist/index.cjs', 'dist/cli.js', 'dist/console/index.html'];

export default function checkBuiltArtefacts(): void {
  const root = new URL('../../', import.meta.url);
  const missing = NEEDED.filter((file) => !existsSync(fileURLToPath(new URL(file, root))));
  if (missing.length > 0) {
    throw new Error(
      `The dev server's tests need its build (${missing.join(', ')} missing): run \`npm run build -w @mailroom/dev-server\` ` +
        '(with @mailroom/core built first), or `npm test` from the repository root, which builds everything before testing.',
    );
  }
}
