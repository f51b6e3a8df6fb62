/**
 * The lane's claim step, with a real ledger and a fake queue: a full batch once the records in hand run
 * low, nothing more while the lane is full, a few jobs above that at once for work a person waits for,
 * and the next batch claimed as soon as the ledger says there is room.
 */
import { afterEach, expect, it } from 'vitest';
import type { EnrichJob } from '../../../src/enrich/jobs.js';
import { ClaimLoop, claimLimit } from '../../../src/enrich/lane/claim-loop.js';
import { Ledger } from '../../../src/enrich/lane/ledger.js';
import { job } from './lane-fixtures.js';

const limits = { lowWater: 5, maxInFlight: 20, interactiveRoom: 5, batchSize: 10 };
const loops: ClaimLoop[] = [];

afterEach(() => {
  for (const loop of loops.splice(0)) loop.stop();
});

it('claims a full batch at low water, none above it, and a little room for a person', () => {
  expect(claimLimit({ ...limits, inFlight: 0, interactiveWaiting: false })).toBe(10);
  expect(claimLimit({ ...limits, inFlight: 5, interactiveWaiting: false })).toBe(10);
  expect(claimLimit({ ...limits, inFlight: 15, interactiveWaiting: false })).toBe(0);
  expect(claimLimit({ ...limits, inFlight: 15, interactiveWaiting: true })).toBe(5);
  expect(claimLimit({ ...limits, inFlight: 24, interactiveWaiting: true })).toBe(1);
});

/** A queue of `waiting` jobs that hands out as many as asked. */
function queue(waiting: number) {
  const asked: number[] = [];
  let next = 0;
  const claim = async (limit: number): Promise<EnrichJob[]> => {
    asked.push(limit);
    const n = Math.min(limit, waiting - next);
    const jobs = Array.from({ length: n }, (_, i) => job(`j${next + i}`, `r${next + i}`));
    next += n;
    return jobs;
  };
  return { claim, asked };
}

it('claims the next batch as soon as records leave the ledger, and stops when told', async () => {
  const ledger = new Ledger({ lowWater: limits.lowWater, waitingAllowance: 0 });
  const { claim, asked } = queue(25);
  const loop = new ClaimLoop({ claim, ledger, limits, pollMs: 60_000, onError: () => undefined });
  loops.push(loop);
  const batches = loop.batches();
  const first = (await batches.next()).value as EnrichJob[];
  expect(first).toHaveLength(10);
  ledger.hold(first.map((j) => j.data.recordId));
  // 10 in hand is above low water: the next claim waits for room (the poll is a minute away).
  const second = batches.next();
  await new Promise((r) => setTimeout(r, 20));
  expect(asked).toEqual([10]);
  ledger.release(first.slice(0, 5).map((j) => j.data.recordId));
  expect(((await second).value as EnrichJob[]).map((j) => j.id)).toEqual(
    Array.from({ length: 10 }, (_, i) => `j${10 + i}`),
  );
  expect(asked).toEqual([10, 10]);
  loop.stop();
  expect((await batches.next()).done).toBe(true);
});

it('claims at once for a person even when the lane is full', async () => {
  const ledger = new Ledger({ lowWater: limits.lowWater, waitingAllowance: 0 });
  ledger.hold(Array.from({ length: 20 }, (_, i) => `held${i}`));
  const { claim, asked } = queue(3);
  const loop = new ClaimLoop({ claim, ledger, limits, pollMs: 60_000, onError: () => undefined });
  loops.push(loop);
  const batches = loop.batches();
  const next = batches.next();
  await new Promise((r) => setTimeout(r, 20));
  expect(asked).toEqual([]);
  loop.wake('interactive');
  expect(((await next).value as EnrichJob[]).length).toBe(3);
  expect(asked).toEqual([5]);
});
