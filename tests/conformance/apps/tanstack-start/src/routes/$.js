import { createFileRoute } from '@tanstack/react-router';
import { endpointFor } from '../../../shared/endpoints.server';

// A catch-all server route: every method reaches the endpoint (`ANY`), so a wrong one gets the
// pipeline's 405 with Allow, and a path the profile does not serve gets a 404.
const answer = ({ request }) => endpointFor(request)?.fetch(request) ?? new Response('Not found', { status: 404 });

export const Route = createFileRoute('/$')({ server: { handlers: { ANY: answer } } });
