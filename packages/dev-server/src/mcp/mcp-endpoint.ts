import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { checkMessagingAuth } from '../http/auth';
import { MCP_PATH } from '../settings';
import { shapeForReadOnly } from '../http/read-only';
import { type Answering, answerRequest, type Route, type ServiceRequest } from '../http/router';
import { filtersInput, type McpTool, offeredFilters, queryOf } from './tool-kit';
import { MCP_TOOLS } from './tools';

// `mailroom dev` as an MCP server at /mcp (Streamable HTTP, stateless: one server per request).
// The request has passed the same Host and Origin guard as the console; the token decides the role,
// and the role decides which tools are listed at all: a tool is the read-only token's only when its
// route answers that token (a GET the route table marks `answer`). Each call then goes through the
// route table with the caller's token, where the same decision is made again.

/** What the MCP endpoint needs besides the route table. */
export interface McpSettings {
  headerPrefix: string;
  /** The `MAILROOM_*` lines an app's `.env` needs (the settings resource). */
  environment: () => string[];
}

type Role = 'full' | 'read-only';

/** A tool with the route it calls. */
interface Bound {
  tool: McpTool;
  route: Route;
}

/** The route of `key` (`METHOD /pattern`) in the table, or an error naming it: a tool must not outlive its route. */
function routeOf(routes: readonly Route[], key: string): Route {
  const route = routes.find((each) => `${each.method} ${each.path}` === key);
  if (!route) throw new Error(`the MCP tool route ${key} is not in the route table`);
  return route;
}

/** Whether `role` may call `route`: the route table's own rule for the read-only token. */
export function roleMayCall(role: Role, route: Route): boolean {
  return role === 'full' || (route.auth === 'messaging' && route.method === 'GET' && route.readOnly === 'answer');
}

/** The tools `role` is offered, each with its route. */
export function toolsFor(role: Role, routes: readonly Route[]): Bound[] {
  return MCP_TOOLS.map((tool) => ({ tool, route: routeOf(routes, tool.route) })).filter(({ route }) => roleMayCall(role, route));
}

// A model reads the summary first; an answer longer than this is cut, with a line saying how to narrow it.
const MAX_TEXT = 60_000;

/** Answers `/mcp`; `false` for any other path. Throws the route table's 401 for a missing or wrong token. */
export async function serveMcp(req: IncomingMessage, res: ServerResponse, answering: Answering, settings: McpSettings): Promise<boolean> {
  if ((req.url ?? '').split('?')[0] !== MCP_PATH) return false;
  const role = checkMessagingAuth(req.headers.authorization, answering.credentials);
  const server = new McpServer({ name: 'mailroom-dev', title: 'Mailroom dev server', version: '1' }, { instructions: INSTRUCTIONS });
  for (const { tool, route } of toolsFor(role, answering.routes)) {
    const filterNames = tool.filters && route.query !== 'not-read' ? offeredFilters(route.query) : [];
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: { ...tool.input, ...filtersInput(filterNames) },
        annotations: { readOnlyHint: route.method === 'GET', destructiveHint: route.method === 'DELETE', openWorldHint: false },
      },
      async (args: Record<string, unknown>) => {
        const call = tool.call(args, { headerPrefix: settings.headerPrefix });
        const reply = await answerRequest(answering, {
          ...requestFrom(req, call.method, call.target + queryOf(args, filterNames), call.headers ?? {}),
          body: bodyOf(call.body),
        });
        const status = reply.status ?? 200;
        const data = reply.json === undefined ? '' : JSON.stringify(readable(reply.json), null, 2);
        const line =
          status >= 400
            ? `refused (${status}): ${(reply.json as { error?: string } | undefined)?.error ?? ''}`
            : tool.summary({ status, json: reply.json });
        const text =
          data.length > MAX_TEXT ? `${data.slice(0, MAX_TEXT)}\n... cut at ${MAX_TEXT} characters: narrow it with filters or count` : data;
        return { content: [{ type: 'text' as const, text: text === '' ? line : `${line}\n${text}` }], isError: status >= 400 };
      },
    );
  }
  server.registerResource(
    'settings',
    'mailroom://settings',
    {
      title: "The service's settings",
      description: "The MAILROOM_* lines an app's .env needs to send to and receive from this server.",
      mimeType: 'text/plain',
    },
    (uri) => {
      const text = settings.environment().join('\n');
      // The read-only token sees the lines with every secret hidden, as in every answer it gets.
      const shown = role === 'full' ? text : String(shapeForReadOnly({ json: text }, answering.readOnly).json);
      return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: shown }] };
    },
  );
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
  return true;
}

const INSTRUCTIONS =
  'Mailroom dev server: a local emulator of the message-delivery service. Find a message with find_messages ' +
  '(state FAILED or RETRY for trouble), read why with message_story (every attempt, answered), fix the handler, ' +
  'then resend_message or retry_dlq and check the story again. The settings resource holds the .env lines an app needs.';

const utf8 = new TextDecoder('utf-8', { fatal: true });
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * An answer as a model reads it: the service's logs carry bodies in base64 (`"body": "eyJvcmRlcklk..."`);
 * a `body` that decodes to printable UTF-8 is shown as that text. Binary bodies stay base64.
 */
function readable(value: unknown, key = ''): unknown {
  if (typeof value === 'string') return key === 'body' ? decodedBody(value) : value;
  if (Array.isArray(value)) return value.map((item) => readable(item));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, readable(item, name)]));
  return value;
}

function decodedBody(text: string): string {
  if (text.length < 4 || !BASE64.test(text)) return text;
  try {
    const decoded = utf8.decode(Buffer.from(text, 'base64'));
    return printable(decoded) ? decoded : text;
  } catch {
    return text;
  }
}

/** Text a person can read: no control character but tab, line feed and carriage return. */
function printable(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 32 && code !== 9 && code !== 10 && code !== 13) return false;
  }
  return true;
}

/** A request to the route table from the MCP request's caller, with its token. */
function requestFrom(req: IncomingMessage, method: string, target: string, headers: Record<string, string>): Omit<ServiceRequest, 'body'> {
  const all: Record<string, string> = { ...headers };
  if (typeof req.headers.authorization === 'string') all.authorization = req.headers.authorization;
  if (typeof req.headers.host === 'string') all.host = req.headers.host;
  return {
    method,
    target,
    headers: all,
    rawHeaders: Object.entries(all).flat(),
    callerIp: (req.socket.remoteAddress ?? '').replace(/^::ffff:/, ''),
  };
}

function bodyOf(value: unknown): ServiceRequest['body'] {
  const bytes = Buffer.from(value === undefined ? '' : JSON.stringify(value), 'utf8');
  return (limit, tooLarge) => (bytes.length > limit ? Promise.reject(tooLarge()) : Promise.resolve(bytes));
}
