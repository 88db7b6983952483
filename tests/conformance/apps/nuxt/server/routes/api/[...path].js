// Every method reaches the handler, so a wrong one gets the pipeline's 405 with Allow.
export default defineEventHandler(
  async (event) => (await conformanceHandler(event))?.(event) ?? new Response('Not found', { status: 404 }),
);
