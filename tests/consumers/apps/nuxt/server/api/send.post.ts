export default defineEventHandler(async (event) => {
  const { orderId } = await readBody<{ orderId: string }>(event);
  return client.send(orderPlaced, { orderId });
});
