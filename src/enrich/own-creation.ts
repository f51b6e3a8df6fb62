/**
 * How the service creates records in a CRM (an employer's company, a discovered person): the creation
 * is marked under way in Postgres before its call goes out, and the mark gives way to the created ids
 * once the CRM answers. The CRM may announce the creation before it answers (or before the ids reach
 * Postgres); the lane then sees the mark, holds the creation's job back, and finds the ids next time:
 * the service never looks its own creation up again.
 */
import { logger } from '../logger.js';
import type { CreatedRecordsPort } from './ports.js';

const log = logger('enrich.own-creation');

/** A creation event of a record not known yet waits this long between looks while a creation is under way. */
export const OWN_CREATION_RECHECK_MS = 500;

/**
 * A mark older than this is a dead process's (a creation call returns well within it); creation events
 * stop waiting for it.
 */
export const OWN_CREATION_MARK_MS = 60_000;

/**
 * Runs `create` marked as under way, then keeps the ids `idsOf` gives from its results. Without a port
 * (tests of a resolver alone), it only runs `create`.
 */
export async function createAsOwn<T>(
  created: Pick<CreatedRecordsPort, 'begin' | 'add' | 'abandon'> | undefined,
  where: { connection: string; objectType: string },
  create: () => Promise<T>,
  idsOf: (result: T) => string[],
): Promise<T> {
  if (!created) return create();
  const mark = await created.begin(where.connection, where.objectType);
  let result: T;
  try {
    result = await create();
  } catch (error) {
    await created.abandon(mark).catch((abandonError: unknown) => {
      log.warn({ err: abandonError }, 'could not lift the mark of a failed creation; it lapses on its own');
    });
    throw error;
  }
  await created.add(where.connection, where.objectType, idsOf(result), mark);
  return result;
}
