import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('loadConfig', () => {
  it('gives the embedded defaults when nothing is set', () => {
    const config = loadConfig({});
    expect(config.PORT).toBe(3000);
    expect(config.CRM_ENRICH_DATA_DIR).toBe('./.data');
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.REFRESH_AFTER_DAYS).toBe(30);
  });

  it('names every bad variable and what it expects', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'not a url', HUBSPOT_TIER: 'gold' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toMatch(/PORT: expected a whole number from 0 to 65535/);
    expect(message).toMatch(/DATABASE_URL: expected a postgres:\/\/ URL/);
    expect(message).toMatch(/HUBSPOT_TIER:/);
  });

  it('checks the database schema name and the job timings', () => {
    const config = loadConfig({});
    expect(config.CRM_ENRICH_DB_SCHEMA).toBe('crm_enrich');
    expect(config.CRM_ENRICH_JOB_EXPIRE_SECONDS).toBe(300);
    expect(config.CRM_ENRICH_JOB_RETRY_DELAY_SECONDS).toBe(10);
    expect(() => loadConfig({ CRM_ENRICH_DB_SCHEMA: 'Drop Table' })).toThrow(/CRM_ENRICH_DB_SCHEMA: expected a schema name/);
    expect(() => loadConfig({ CRM_ENRICH_JOB_EXPIRE_SECONDS: '1' })).toThrow(/CRM_ENRICH_JOB_EXPIRE_SECONDS: expected a whole number from 2 to 86400/);
    expect(() => loadConfig({ CRM_ENRICH_JOB_RETRY_DELAY_SECONDS: 'soon' })).toThrow(/CRM_ENRICH_JOB_RETRY_DELAY_SECONDS: expected a whole number/);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ DATABASE_URL: '' }).DATABASE_URL).toBeUndefined();
  });
});
