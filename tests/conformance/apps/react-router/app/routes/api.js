import { endpointFor } from '../../../shared/endpoints.server';

const notFound = () => new Response('Not found', { status: 404 });

// A resource route: React Router calls `action` for POST (and every method but GET and HEAD), `loader`
// for GET and HEAD; both hand the endpoint the Request unread, so a wrong method gets its 405.
/** @param {import('react-router').ActionFunctionArgs} args */
export const action = ({ request }) => endpointFor(request)?.fetch(request) ?? notFound();

/** @param {import('react-router').LoaderFunctionArgs} args */
export const loader = ({ request }) => endpointFor(request)?.fetch(request) ?? notFound();
