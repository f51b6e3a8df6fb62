/**
 * Work a person waits for (a contact typed in, enriched while they look), marked on the asynchronous
 * context: what such work starts, down to its database statements, can go ahead of bulk work where one
 * resource serves both (the embedded database's single session: src/store/yielding-pglite.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const context = new AsyncLocalStorage<boolean>();

/** Runs `fn`, marking it and everything it starts as work a person waits for when `person` is true. */
export function forPerson<T>(person: boolean, fn: () => T): T {
  return person ? context.run(true, fn) : fn();
}

/** Whether the work running now is work a person waits for. */
export function personWaits(): boolean {
  return context.getStore() === true;
}
