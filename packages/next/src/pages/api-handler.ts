import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A Pages Router API route handler, typed by Node's own request and response: `NextApiRequest` and
 * `NextApiResponse` extend them, so it is a valid `export default` without importing `next` types.
 */
export type ApiHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;
