/**
 * The baseline of the ingest benchmark: the webhook route one would write by hand. Express with a raw
 * body, HubSpot's v3 signature checked, the JSON parsed, and one INSERT per event (a unique key, so a
 * redelivery is not stored twice), acknowledged after the inserts.
 */
import express from 'express';
import pg from 'pg';
import type { Server } from 'node:http';
import { verifyHubspotSignature } from '../connectors/hubspot/signature.js';

export interface Baseline {
  url: string;
  stored(): Promise<number>;
  close(): Promise<void>;
}

export async function startBaseline(
  databaseUrl: string,
  schema: string,
  secret: string,
  poolSize: number,
): Promise<Baseline> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize });
  await pool.query(
    `CREATE SCHEMA IF NOT EXISTS "${schema}"; ` +
      `CREATE TABLE IF NOT EXISTS "${schema}".event (key text PRIMARY KEY, object_id text NOT NULL, ` +
      `body jsonb NOT NULL, received_at timestamptz NOT NULL DEFAULT now())`,
  );
  const app = express();
  let base = '';
  app.post('/webhooks/hubspot', express.raw({ type: () => true, limit: 1024 * 1024 }), async (req, res) => {
    const rawBody = req.body as Buffer;
    const check = verifyHubspotSignature(
      { method: 'POST', url: base + req.originalUrl, rawBody, header: (name) => req.get(name) },
      { clientSecret: secret },
    );
    if (!check.ok) return void res.status(401).json({ message: check.reason });
    let events: { eventId: number; objectId: number; subscriptionType: string; occurredAt: number }[];
    try {
      events = JSON.parse(rawBody.toString('utf8')) as typeof events;
    } catch {
      return void res.status(400).json({ message: 'not JSON' });
    }
    try {
      for (const e of events) {
        await pool.query(
          `INSERT INTO "${schema}".event (key, object_id, body) VALUES ($1, $2, $3) ON CONFLICT (key) DO NOTHING`,
          [`${e.subscriptionType}:${e.objectId}:${e.occurredAt}`, String(e.objectId), JSON.stringify(e)],
        );
      }
      res.status(200).end();
    } catch {
      res.status(503).end();
    }
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    url: `${base}/webhooks/hubspot`,
    async stored() {
      const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".event`);
      return rows[0]!.n;
    },
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    },
  };
}
