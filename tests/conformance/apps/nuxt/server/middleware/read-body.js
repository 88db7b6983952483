// What a logging or auth middleware does: read the body of every POST before the route runs. h3
// keeps the bytes it read, which is what the Mailroom route gets (docs/frameworks/h3.md).
export default defineEventHandler(async (event) => {
  if (event.method === 'POST') await readRawBody(event, false);
});
