// The IPC commands every app under load answers: how many deliveries its handlers saw, and the CPU
// time its process has used (what a request costs the server, whatever the load generator achieves).
export function answerCommands(handled) {
  process.on('message', (message) => {
    if (message.cmd === 'handled') process.send({ id: message.id, ok: true, result: handled() });
    if (message.cmd === 'cpu') {
      const { user, system } = process.cpuUsage();
      process.send({ id: message.id, ok: true, result: user + system });
    }
  });
  process.on('SIGTERM', () => process.exit(0));
}
