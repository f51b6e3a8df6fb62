/**
 * When a request leaves: the limiter is told as the request is written to the socket, before its answer
 * comes back, and for each of several requests under way at once, its own.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendReportingDeparture } from '../../../src/partner/departure.js';

describe('sendReportingDeparture', () => {
  let server: Server;
  let url: string;
  /** When each request reached the server, by its path. */
  const arrived = new Map<string, number>();
  beforeAll(async () => {
    server = createServer((req, res) => {
      arrived.set(req.url ?? '', performance.now());
      // Each answer waits as long as its path says.
      const ms = Number(/wait=(\d+)/.exec(req.url ?? '')?.[1] ?? 0);
      setTimeout(() => res.end('ok'), ms);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('reports a request as it leaves, not when its answer is back', async () => {
    let leftAt = 0;
    const sentAt = performance.now();
    const response = await sendReportingDeparture(
      () => (leftAt = performance.now()),
      () => fetch(`${url}/one?wait=300`),
    );
    const answeredAt = performance.now();
    expect(await response.text()).toBe('ok');
    expect(leftAt).toBeGreaterThanOrEqual(sentAt);
    expect(leftAt).toBeLessThanOrEqual(arrived.get('/one?wait=300')!);
    expect(answeredAt - leftAt).toBeGreaterThanOrEqual(290);
  });

  it('tells each of several requests under way at once of its own departure, once', async () => {
    const reports = new Map<number, number[]>();
    await Promise.all(
      [0, 1, 2, 3, 4].map((i) =>
        sendReportingDeparture(
          () => reports.set(i, [...(reports.get(i) ?? []), performance.now()]),
          // The later ones leave later: each waits i * 50 ms before asking.
          async () => {
            await new Promise((r) => setTimeout(r, i * 50));
            return (await fetch(`${url}/many-${i}?wait=${400 - i * 50}`)).text();
          },
        ),
      ),
    );
    for (const i of [0, 1, 2, 3, 4]) {
      expect(reports.get(i)).toHaveLength(1);
      const arrival = arrived.get(`/many-${i}?wait=${400 - i * 50}`)!;
      // Reported before its arrival and within a few milliseconds of it: its own request, not another's.
      expect(reports.get(i)![0]!).toBeLessThanOrEqual(arrival);
      expect(arrival - reports.get(i)![0]!).toBeLessThan(25);
    }
  });

  it('reports a request that never reached anyone when it failed, so it still counts', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    let reported = 0;
    await expect(
      sendReportingDeparture(
        () => reported++,
        () => fetch(`http://127.0.0.1:${port}/`),
      ),
    ).rejects.toThrow();
    expect(reported).toBe(1);
  });
});
