/**
 * The partner sandbox on a thread of its own (see thread.ts): started with the options it is given, it
 * answers with its address and a few people it knows, and closes when asked.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { startPartnerSandbox, type PartnerSandboxOptions } from './server.js';

const sandbox = await startPartnerSandbox(workerData as PartnerSandboxOptions);
// Plain values: a record's fields are getters, which a message between threads does not carry.
const known = sandbox.dataset.personRecords
  .filter((p) => p.workEmail)
  .slice(0, 20)
  .map((p) => ({ id: p.id, workEmail: p.workEmail! }));
parentPort!.postMessage({ url: sandbox.url, port: sandbox.port, known });
parentPort!.on('message', (message: { type: 'close' }) => {
  if (message.type !== 'close') return;
  void sandbox.close().then(() => parentPort!.close());
});
