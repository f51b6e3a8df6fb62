/**
 * A Salesforce field the integration user cannot see (no field-level security access) is left out of
 * describe and refused with INVALID_FIELD when named, as Salesforce does. The service finds it at
 * start-up and names it as a mapping problem, with where to grant access, instead of failing every write.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CrmError } from '../../src/core/connector.js';
import { MappingError } from '../../src/mapping/index.js';
import { createSalesforceConnector } from '../../connectors/salesforce/connector.js';
import { serverUnavailable } from '../support/db.js';
import { dropSchema } from './probes.js';
import { startSandboxes, startService, type Sandboxes } from './stack.js';

const skip = await serverUnavailable();
if (skip) console.warn(`skipping the field-level security test: ${skip}`);

describe.skipIf(skip)('Salesforce field-level security', () => {
  let sandboxes: Sandboxes | undefined;
  afterAll(async () => {
    await sandboxes?.close();
  });

  it('hides the field like Salesforce, and the service names it at start-up instead of failing writes', async () => {
    sandboxes = await startSandboxes({ salesforceHiddenFields: { Contact: ['Title'] } });
    const salesforce = sandboxes.salesforce;
    const contact = salesforce.createRecord(
      'Contact',
      { LastName: 'Doe', Email: 'jane@example.com' },
      { notify: false },
    );
    const connector = createSalesforceConnector({
      auth: { kind: 'client_credentials', loginUrl: salesforce.url, clientId: 'sandbox', clientSecret: 'sandbox' },
      orgId: salesforce.orgId,
      apiReserve: 0,
    });
    try {
      const schema = await connector.readSchema('Contact');
      expect(schema.some((p) => p.name === 'Title')).toBe(false);
      expect(schema.some((p) => p.name === 'Email')).toBe(true);
      const read = await connector
        .readRecords('Contact', [contact], ['Title'], { priority: 'interactive' })
        .catch((e: unknown) => e);
      expect(read).toBeInstanceOf(CrmError);
      expect((read as CrmError).message).toContain("No such column 'Title'");
      const [write] = await connector.writeRecords('Contact', [{ id: contact, properties: { Title: 'CEO' } }], {
        priority: 'interactive',
      });
      expect(write).toMatchObject({ ok: false, error: { code: 'INVALID_FIELD' } });
    } finally {
      await connector.close();
    }

    const started = await startService(sandboxes, { schema: `e2e_fls_${process.pid}` }).catch((e: unknown) => e);
    await dropSchema(`e2e_fls_${process.pid}`);
    expect(started).toBeInstanceOf(MappingError);
    const message = (started as MappingError).message;
    expect(message).toContain('Title');
    expect(message).toContain('field-level access');
    expect(message).toContain(
      'Setup > Object Manager > Contact > Fields & Relationships > Title > Set Field-Level Security',
    );
  });
});
