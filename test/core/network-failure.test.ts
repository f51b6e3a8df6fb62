/**
 * An unreachable service is an expected failure: the log line says what failed and the system's code,
 * without a stack trace. Other errors keep their stack, and every message is still scrubbed of values.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createHubspotConnector } from '../../connectors/hubspot/connector.js';
import { CrmError, type CrmConnector } from '../../src/core/connector.js';
import { AppError } from '../../src/core/errors.js';
import { isExpectedFailure, networkCause } from '../../src/core/network-failure.js';
import { serializeError } from '../../src/logger.js';

/** A port nothing listens on: one the system gave out and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('expected network failures in the log', () => {
  const connectors: CrmConnector[] = [];
  afterAll(async () => {
    for (const c of connectors) await c.close?.();
  });

  it('finds the system code behind fetch failed', async () => {
    const error = await fetch(`http://127.0.0.1:${await closedPort()}/`).catch((e: unknown) => e);
    expect((error as Error).message).toBe('fetch failed');
    expect(networkCause(error)).toBe('ECONNREFUSED');
    expect(isExpectedFailure(error)).toBe(true);
    expect(isExpectedFailure(new Error('a bug'))).toBe(false);
  });

  it('logs HubSpot unreachable as one line with its code, no stack', async () => {
    const hubspot = createHubspotConnector({
      connection: `unreachable-${process.pid}`,
      accessToken: 'pat-x',
      basePath: `http://127.0.0.1:${await closedPort()}`,
    });
    connectors.push(hubspot);
    const error = await hubspot.readSchema('contact').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CrmError);
    const logged = serializeError(error);
    expect(logged.stack).toBeUndefined();
    expect(logged.message).toMatch(
      /^HubSpot could not be reached for \w+: fetch failed \(ECONNREFUSED\)\. Check HUBSPOT_BASE_URL and the network\.$/,
    );
    expect(logged).toMatchObject({ type: 'CrmError', code: 'unavailable', kind: 'transient' });
    expect(JSON.stringify(logged).split('\n')).toHaveLength(1);
  });

  it('keeps the stack of an unexpected error, and scrubs values either way', () => {
    const bug = serializeError(new Error('cannot read x of undefined for ada@example.com'));
    expect(bug.stack).toMatch(/^Error: cannot read x of undefined for <email>\n\s+at /);
    expect(bug.message).toBe('cannot read x of undefined for <email>');
    const refused = serializeError(new AppError('config', 'the CRM refused ada@example.com', 'config'));
    expect(refused.stack).toBeDefined();
    const retried = serializeError(new AppError('server_error', 'the partner failed for ada@example.com', 'transient'));
    expect(retried).toMatchObject({ message: 'the partner failed for <email>', code: 'server_error' });
    expect(retried.stack).toBeUndefined();
  });
});
