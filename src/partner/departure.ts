/**
 * The moment a request's bytes leave for the provider. The provider counts a key's requests as they
 * reach it, and between `fetch()` and the socket write lie a connection from the pool and a few turns of
 * the event loop, which the embedded database's work can hold for tens of milliseconds. Node's fetch
 * (undici) says when it writes a request's headers on its diagnostics channels: the request is tied to
 * its caller when it is created (in the caller's async context) and reported when it is written.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import diagnostics from 'node:diagnostics_channel';

type Left = () => void;

const sender = new AsyncLocalStorage<Left>();
const leaving = new WeakMap<object, Left>();
let listening = false;

function listen(): void {
  if (listening) return;
  listening = true;
  diagnostics.subscribe('undici:request:create', (message) => {
    const left = sender.getStore();
    if (left) leaving.set((message as { request: object }).request, left);
  });
  diagnostics.subscribe('undici:client:sendHeaders', (message) => {
    const request = (message as { request: object }).request;
    const left = leaving.get(request);
    leaving.delete(request);
    left?.();
  });
}

/**
 * Runs `send` (a fetch) and calls `left` once, when its request is written to the socket. Where that is
 * never reported (no connection could be made, a fetch that is not Node's), `left` is called when
 * `send` settles: the request counts from then, later than it could have left, never earlier.
 */
export async function sendReportingDeparture<T>(left: () => void, send: () => Promise<T>): Promise<T> {
  listen();
  let reported = false;
  const once = () => {
    if (reported) return;
    reported = true;
    left();
  };
  try {
    return await sender.run(once, send);
  } finally {
    once();
  }
}
