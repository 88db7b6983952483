export default function Home() {
  return (
    <main>
      <h1>Mailroom example (Next.js App Router)</h1>
      <p>POST /api/orders, /api/callbacks and /api/failures receive signed deliveries; GET /api/events lists what they saw.</p>
    </main>
  );
}
