// Shared pieces of the benchmark: the server, counters, percentiles.
import { readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { closeDb, connect, type Db } from "../lib/db/client";
import { ensureDatabase, startEmbeddedPostgres } from "../lib/db/embedded";
import { migrateDatabase } from "../lib/db/migrate";
import { sql } from "drizzle-orm";
import { execute } from "../lib/db/drizzle";

export type Server = { adminUrl: string; stop: () => Promise<void> };

/** The embedded server's data directory (its postmaster's CPU is read from /proc); null for DATABASE_URL's. */
let serverDataDir: string | null = null;

/** One PostgreSQL for every system: DATABASE_URL's server (an admin URL), or an embedded one in its own data dir. */
export async function benchServer(dataDir = ".data/bench-pg", log = (s: string) => console.log(s)): Promise<Server> {
  if (process.env.DATABASE_URL) {
    log(`using the server at DATABASE_URL`);
    return { adminUrl: process.env.DATABASE_URL, stop: async () => {} };
  }
  log(`starting embedded PostgreSQL in ${dataDir}`);
  const s = await startEmbeddedPostgres({ dataDir, fresh: true });
  serverDataDir = path.resolve(dataDir);
  return {
    adminUrl: s.adminUrl,
    stop: async () => {
      await s.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A checkpoint now (the server's superuser, or a role with pg_checkpoint). */
export async function checkpoint(adminUrl: string) {
  const admin = connect(adminUrl, { max: 1 });
  await execute(admin, sql`CHECKPOINT`);
  await closeDb(admin);
}

/** Drop a database if it exists, closing its connections. */
export async function dropDb(adminUrl: string, name: string) {
  const admin = connect(adminUrl, { max: 1 });
  await execute(admin, sql.raw(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  await closeDb(admin);
}

/** A fresh database on the server; `jobscope` ones are migrated. */
export async function freshDb(adminUrl: string, name: string, opts: { jobscope?: boolean } = {}): Promise<string> {
  await dropDb(adminUrl, name);
  const url = await ensureDatabase(adminUrl, name);
  if (opts.jobscope) {
    await migrateDatabase(url);
    const db = connect(url, { max: 1 });
    await execute(db, sql`INSERT INTO tenants (id, name) VALUES ('acme', 'ACME') ON CONFLICT DO NOTHING`);
    await closeDb(db);
  }
  return url;
}

/**
 * `url` with every table trigger off for each session of a pool made from it (the direct-write
 * guard, the tenant check): the setting as a startup parameter, which the driver sends for a URL
 * parameter it does not know. Not a product setting: the bench's way to price what the triggers cost.
 */
export function triggersOff(url: string): string {
  const u = new URL(url);
  u.searchParams.set("session_replication_role", "replica");
  return u.toString();
}

export type Snapshot = { lsn: string; pgCpuUs: number | null };

const TICK_US = 10_000; // /proc times are in clock ticks: 100 per second on Linux.

/**
 * CPU used by the PostgreSQL server so far (µs): its postmaster, every live backend and helper,
 * and (cutime/cstime) the children it has reaped, so backends that exited still count.
 * null when the server is not the embedded one (DATABASE_URL) or /proc is not readable.
 */
export function pgCpuUs(): number | null {
  if (!serverDataDir) return null;
  try {
    const master = readFileSync(path.join(serverDataDir, "postmaster.pid"), "utf8").split("\n")[0]!.trim();
    const fields = (pid: string) => {
      const st = readFileSync(`/proc/${pid}/stat`, "utf8");
      return st.slice(st.lastIndexOf(")") + 2).split(" ");
    };
    // A backend that exits during the scan is reaped into the postmaster's cutime/cstime: read the
    // postmaster before and after the children, and scan again if a child was reaped in between
    // (else its CPU is in neither reading, and the next burn's window gets all of it).
    for (let tries = 0; ; tries++) {
      const m = fields(master);
      let ticks = Number(m[11]) + Number(m[12]) + Number(m[13]) + Number(m[14]);
      for (const p of readdirSync("/proc")) {
        if (!/^\d+$/.test(p) || p === master) continue;
        try {
          const f = fields(p);
          if (f[1] === master) ticks += Number(f[11]) + Number(f[12]);
        } catch {
          // exited and reaped meanwhile: the postmaster's second reading tells
        }
      }
      const m2 = fields(master);
      if ((m2[13] === m[13] && m2[14] === m[14]) || tries >= 20) return ticks * TICK_US;
    }
  } catch {
    return null;
  }
}

/**
 * WAL records between two positions, by what wrote them (pg_walinspect): heap rows written
 * (insert, update, HOT update, delete) and btree index entries inserted. Server-wide: call around
 * one system's run at a time.
 */
export async function walRecords(url: string, from: Snapshot, to: Snapshot): Promise<{ heapRows: number; btreeEntries: number } | null> {
  const db = connect(url, { max: 1 });
  try {
    await execute(db, sql`CREATE EXTENSION IF NOT EXISTS pg_walinspect`);
    const rows = await execute<{ rm: string; rec: string; n: string }>(
      db,
      sql`
      SELECT split_part("resource_manager/record_type", '/', 1) AS rm, split_part("resource_manager/record_type", '/', 2) AS rec, count::text AS n
        FROM pg_get_wal_stats(${from.lsn}::pg_lsn, ${to.lsn}::pg_lsn, true)`,
    );
    let heapRows = 0;
    let btreeEntries = 0;
    for (const r of rows) {
      const n = Number(r.n);
      if (r.rm === "Heap" && /^(INSERT|UPDATE|HOT_UPDATE|DELETE)(\+INIT)?$/.test(r.rec)) heapRows += n;
      if (r.rm === "Btree" && /^INSERT_(LEAF|POST)/.test(r.rec)) btreeEntries += n;
    }
    return { heapRows, btreeEntries };
  } catch {
    return null;
  } finally {
    await closeDb(db);
  }
}

/**
 * WAL position (server-wide) and the server's CPU so far, on an open connection (the burn-down's
 * last one is taken the moment its last job is done), in one round trip.
 */
export async function snapshot(db: Db): Promise<Snapshot> {
  const pgCpu = pgCpuUs();
  const [r] = await execute<{ lsn: string }>(db, sql`SELECT pg_current_wal_lsn()::text AS lsn`);
  return { lsn: r!.lsn, pgCpuUs: pgCpu };
}

export async function walBytes(url: string, from: Snapshot, to: Snapshot): Promise<number> {
  const db = connect(url, { max: 1 });
  try {
    const [r] = await execute<{ d: string }>(db, sql`SELECT pg_wal_lsn_diff(${to.lsn}, ${from.lsn})::text AS d`);
    return Number(r!.d);
  } finally {
    await closeDb(db);
  }
}

/** Table and index bytes of the tables in `schemas`, with their row estimates (a partitioned table: summed over its partitions). */
export async function sizes(url: string, schemas: string[]) {
  const db = connect(url, { max: 1 });
  try {
    return await execute<{ table: string; rows: string; tableBytes: string; indexBytes: string }>(
      db,
      sql`
      SELECT n.nspname || '.' || c.relname AS table, sum(greatest(l.reltuples, 0))::bigint::text AS rows,
             sum(pg_table_size(l.oid))::text AS "tableBytes", sum(pg_indexes_size(l.oid))::text AS "indexBytes"
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        JOIN LATERAL (
          SELECT t.relid FROM pg_partition_tree(c.oid) t WHERE c.relkind = 'p' AND t.isleaf
          UNION ALL SELECT c.oid WHERE c.relkind = 'r') leaf ON true
        JOIN pg_class l ON l.oid = leaf.relid
       WHERE c.relkind IN ('r', 'p') AND n.nspname = ANY(${sql.param(schemas)}) AND NOT c.relispartition
       GROUP BY n.nspname, c.relname
       ORDER BY sum(pg_total_relation_size(l.oid)) DESC`,
    );
  } finally {
    await closeDb(db);
  }
}

export function pct(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function waitUntil(what: string, fn: () => Promise<boolean>, timeoutMs: number, everyMs = 20) {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

export const fmt = (n: number, digits = 0) =>
  Number.isFinite(n) ? n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits }) : "n/a";
export const mb = (bytes: number) => `${fmt(bytes / 1024 / 1024, 1)} MB`;

export type { Db };
