/**
 * Autovacuum for the embedded database. PGlite runs Postgres as one backend without the autovacuum
 * launcher, so nothing reclaims the row versions that updates and deletes leave behind, and nothing
 * gathers planner statistics. (A 1,500-contact import left the job table with 22,358 dead rows against
 * 1,505 live ones, which every claim and settle read through.) This vacuums as autovacuum would, by
 * its default rule: a table once its dead rows pass 50 plus a fifth of its live rows. It does not
 * analyze: ANALYZE samples up to 30,000 rows of a table, and an import's audit trail holds hundreds of
 * thousands; with it, the embedded database took 66 MB instead of 41 during a 15,000-contact import,
 * on the thread the service shares. A Postgres server has its own autovacuum; the service runs this
 * only on the embedded database.
 */
import type { Db } from './db.js';

/** Autovacuum's defaults (autovacuum_vacuum_threshold, autovacuum_vacuum_scale_factor). */
const VACUUM_BASE = 50;
const VACUUM_SCALE = 0.2;

/** One table's row counts, as pg_stat_user_tables has them. */
export interface TableActivity {
  table: string;
  live: number;
  dead: number;
}

/** Whether a table is due for a vacuum by autovacuum's rule. */
export function needsVacuum(t: TableActivity): boolean {
  return t.dead > VACUUM_BASE + VACUUM_SCALE * t.live;
}

export interface EmbeddedVacuumOptions {
  /** Between looks at the tables' row counts (default 10 s). */
  intervalMs?: number;
  /** A pass that failed; the next one tries again. */
  onError?: (error: unknown) => void;
}

export class EmbeddedVacuum {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<string[]> | undefined;

  constructor(
    private readonly db: Db,
    private readonly schema: string,
    private readonly options: EmbeddedVacuumOptions = {},
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      void this.pass().catch((error: unknown) => this.options.onError?.(error));
    }, this.options.intervalMs ?? 10_000);
    this.timer.unref();
  }

  /** Stops looking and waits for a pass under way. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  /** One look at the schema's tables, vacuuming those due; one pass at a time. Returns the tables vacuumed. */
  pass(): Promise<string[]> {
    this.running ??= this.vacuumDue().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async vacuumDue(): Promise<string[]> {
    const { rows } = await this.db.query<{ table: string; live: string; dead: string }>(
      `SELECT relname AS table, n_live_tup AS live, n_dead_tup AS dead
         FROM pg_stat_user_tables WHERE schemaname = $1 ORDER BY relname`,
      [this.schema],
    );
    const vacuumed: string[] = [];
    for (const row of rows) {
      if (!needsVacuum({ table: row.table, live: Number(row.live), dead: Number(row.dead) })) continue;
      // One statement each: VACUUM may not run inside a transaction block, nor with others.
      await this.db.exec(`VACUUM "${this.schema}"."${row.table.replaceAll('"', '""')}"`);
      vacuumed.push(row.table);
    }
    return vacuumed;
  }
}
