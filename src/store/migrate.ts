/**
 * Applies the numbered SQL files in ./migrations in order, each once. All of it happens in one
 * transaction under an advisory lock, so instances starting together never race: the second waits,
 * then finds nothing left to do.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from './db.js';
import { StoreError } from './errors.js';

const migrationsDir = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

export interface MigrationResult {
  schema: string;
  applied: string[];
  alreadyApplied: string[];
}

export function assertSchemaName(schema: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new StoreError(
      'invalid_schema',
      `Schema name "${schema}" is not usable: use lower-case letters, digits and underscores, starting with a letter.`,
      { schema },
    );
  }
  return schema;
}

export function listMigrations(): { version: string; sql: string }[] {
  return readdirSync(migrationsDir)
    .filter((file) => /^\d{3}_[a-z0-9_]+\.sql$/.test(file))
    .sort()
    .map((file) => ({ version: file.slice(0, -4), sql: readFileSync(join(migrationsDir, file), 'utf8') }));
}

export async function migrate(db: Db, schema: string): Promise<MigrationResult> {
  assertSchemaName(schema);
  const migrations = listMigrations();
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`crm-enrich migrate ${schema}`]);
    await tx.exec(`CREATE SCHEMA IF NOT EXISTS "${schema}"; SET LOCAL search_path TO "${schema}";`);
    await tx.exec(
      'CREATE TABLE IF NOT EXISTS schema_migration ' +
        '(version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const { rows } = await tx.query<{ version: string }>('SELECT version FROM schema_migration');
    const done = new Set(rows.map((r) => r.version));
    const applied: string[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      try {
        await tx.exec(migration.sql);
      } catch (error) {
        throw new StoreError(
          'migration_failed',
          `Migration ${migration.version} failed in schema ${schema}: ${(error as Error).message}. Nothing ` +
            `was changed; fix the database and run \`crm-enrich migrate\` again.`,
          { version: migration.version, schema },
          { cause: error },
        );
      }
      await tx.query('INSERT INTO schema_migration (version) VALUES ($1)', [migration.version]);
      applied.push(migration.version);
    }
    return { schema, applied, alreadyApplied: [...done].sort() };
  });
}
