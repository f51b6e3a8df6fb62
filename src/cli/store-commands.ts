/**
 * `crm-enrich migrate`: applies the store's migrations (ours and the queue's) and says what it did.
 * Start-up does the same, so this is for deploy pipelines that migrate before rolling out.
 */
import type { Command } from 'commander';

export function registerStoreCommands(parent: Command): void {
  parent
    .command('migrate')
    .description(
      'create or upgrade the database schema (DATABASE_URL, or the embedded database in CRM_ENRICH_DATA_DIR)',
    )
    .option('--schema <name>', 'schema that holds the tables (default: CRM_ENRICH_DB_SCHEMA, or crm_enrich)')
    .action(async (options: { schema?: string }) => {
      const { loadConfig } = await import('../config.js');
      const { openStore } = await import('../store/store.js');
      const { AppError } = await import('../core/errors.js');
      const started = Date.now();
      let config;
      let store;
      try {
        config = loadConfig();
        store = await openStore({
          databaseUrl: config.DATABASE_URL,
          dataDir: config.CRM_ENRICH_DATA_DIR,
          schema: options.schema ?? config.CRM_ENRICH_DB_SCHEMA,
        });
      } catch (error) {
        if (!(error instanceof AppError) && (error as Error).name !== 'ConfigError') throw error;
        console.error(`crm-enrich migrate: ${(error as Error).message}`);
        process.exitCode = 1;
        return;
      }
      try {
        const { rows } = await store.db.query<{ version: string }>(
          `SELECT version FROM "${store.schema}".schema_migration ORDER BY version`,
        );
        const where = config.DATABASE_URL
          ? 'the Postgres server in DATABASE_URL'
          : `${config.CRM_ENRICH_DATA_DIR}/pglite`;
        console.log(
          `schema ${store.schema} on ${where} is at ${rows.at(-1)?.version ?? 'nothing'} (${rows.length} ` +
            `migrations), in ${Date.now() - started} ms`,
        );
      } finally {
        await store.close();
      }
    });
}
