import { createFileRoute } from '@tanstack/react-router';
import { received } from '../../lib/mailroom';

export const Route = createFileRoute('/api/events')({ server: { handlers: { GET: () => Response.json(received) } } });
