import { describe, expect, it } from 'vitest';
import { CrmError } from '../../src/core/connector.js';
import { parseCrmAnswer } from '../../src/core/crm-answer.js';
import { HubspotObjects } from '../../connectors/hubspot/wire-schemas.js';

describe('parseCrmAnswer', () => {
  it('keeps fields the vendor adds and gives the parsed answer back', () => {
    // HubSpot's wire form: dates as ISO text (the legacy client's Date objects pass through a JSON round trip first).
    const at = '2026-01-02T03:04:05.000Z';
    const [object] = parseCrmAnswer(
      'hubspot',
      HubspotObjects,
      [{ id: '1', properties: { email: 'a@example.com' }, createdAt: at, archived: false }],
      'batch_read',
    );
    expect(object).toMatchObject({ id: '1', properties: { email: 'a@example.com' }, createdAt: at, archived: false });
  });

  it('refuses an answer that does not fit with an AppError naming the call and the path, never the values', () => {
    let error: unknown;
    try {
      parseCrmAnswer(
        'hubspot',
        HubspotObjects,
        [{ id: 7, properties: { email: 'secret.person@example.com' } }],
        'batch_read',
      );
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CrmError);
    const e = error as CrmError;
    expect(e.code).toBe('invalid_response');
    expect(e.retryable).toBe(false);
    expect(e.message).toContain('batch_read');
    expect(e.message).toContain('0.id');
    expect(e.message).not.toContain('secret.person');
  });
});
