// `npm start`: the whole product on one machine. Starts PostgreSQL (embedded
// unless DATABASE_URL is set), migrates, seeds a demo on first run, builds the
// console if needed, then runs the web app, workers, a supervisor and demo
// traffic until Ctrl-C, which drains the workers and stops everything. With
// DATABASE_URL or --deployment it is a deployment: no demo data, users or traffic.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { parseArgs } from "node:util";
import { closeDb, connect } from "../lib/db/client";
import { advertiseUrl, DEFAULT_DATA_DIR, ensureDatabase, startEmbeddedPostgres, writePrivateFile } from "../lib/db/embedded";
import { migrateDatabase } from "../lib/db/migrate";
import { provisionRoles } from "../lib/db/roles";
import { isDemoStart, prepareFirstRun } from "../lib/demo/first-run";
import { startTraffic } from "../lib/demo/traffic";
import { keepChild, runChild, type KeptChild } from "../lib/run-child";
import { buildNeeded } from "./build-needed";

const { values: args } = parseArgs({
  options: {
    port: { type: "string", default: process.env.PORT ?? "3000" },
    host: { type: "string", default: "127.0.0.1" },
    data: { type: "string", default: DEFAULT_DATA_DIR },
    fresh: { type: "boolean", default: false },
    "no-traffic": { type: "boolean", default: false },
    "demo-jobs": { type: "string", default: "3000" },
    workers: { type: "string", default: "2" },
    dev: { type: "boolean", default: false },
    // A deployment on the embedded PostgreSQL: no demo data, users or traffic (as with DATABASE_URL).
    deployment: { type: "boolean", default: false },
  },
});
const demo = isDemoStart(process.env, args.deployment);
const say = (s: string) => console.log(`[jobscope] ${s}`);
const node = process.execPath;
const children: KeptChild[] = [];
let stopping = false;

async function database(): Promise<{ url: string; stop: () => Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => {} };
  say(`starting embedded PostgreSQL (data in ${args.data})`);
  // Kept alive like the other processes: a server that dies comes back on the same port and data.
  const server = await startEmbeddedPostgres({ dataDir: args.data, fresh: args.fresh, keepAlive: { say } });
  const url = await ensureDatabase(server.adminUrl, "jobscope");
  return { url, stop: server.stop };
}

/** The deployment secret (sessions, DB role passwords): BETTER_AUTH_SECRET, or one kept next to the data dir. */
function deploymentSecret(): string {
  if (process.env.BETTER_AUTH_SECRET) return process.env.BETTER_AUTH_SECRET;
  const file = `${path.resolve(args.data)}.secret`;
  if (!args.fresh && existsSync(file)) return readFileSync(file, "utf8").trim();
  const secret = randomBytes(32).toString("hex");
  writePrivateFile(file, secret);
  return secret;
}

async function buildIfNeeded() {
  if (!buildNeeded(process.env.JOBSCOPE_DIST_DIR ?? ".next")) return;
  say("building the console (next build)…");
  // Awaited, not spawnSync: this process drains the embedded server's log (lib/run-child.ts).
  if ((await runChild(node, ["node_modules/next/dist/bin/next", "build"], { env: { ...process.env, NODE_ENV: "production" } })) !== 0)
    throw new Error("next build failed");
}

/**
 * Run a child and keep it running: whatever ends it — a poison job that kills its worker, a crash of
 * the web process, a drain an operator asked for — it is started again (lib/run-child.ts, keepChild),
 * until Ctrl-C. Its own process group: Ctrl-C reaches only this script, which then stops the
 * children once each, in order (a second SIGTERM makes a worker skip its drain).
 */
function keep(name: string, argv: string[], env: NodeJS.ProcessEnv) {
  children.push(keepChild(name, node, argv, { env, detached: true, log: say }));
}

/**
 * The console's port must be free before the web process starts: kept alive, a web process that
 * cannot listen would be restarted over and over instead of saying so once.
 */
function portFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}

let stopDatabase = async () => {};
let shutdown: (code: number, why?: string) => Promise<void> = async (code) => {
  await stopDatabase();
  process.exit(code);
};

async function main() {
  const db = await database();
  stopDatabase = db.stop;
  // Tell `npm run worker` and the e2e fixtures where the database is.
  const advertise = !process.env.DATABASE_URL;
  if (advertise) advertiseUrl(args.data, db.url);
  await migrateDatabase(db.url);
  const secret = deploymentSecret();
  // The web app and the workers do not connect as the owner: row-level security applies to them.
  const roles = await provisionRoles(db.url, secret);
  const owner = connect(db.url, { max: 4, appName: "jobscope-start" });
  // The demo seeds its data and users; a deployment says how to create its first admin (lib/demo/first-run.ts).
  const firstRun = await prepareFirstRun(owner, { demo, demoJobs: Number(args["demo-jobs"]), log: say });
  if (!args.dev) await buildIfNeeded();
  if (!(await portFree(Number(args.port), args.host)))
    throw new Error(`port ${args.port} on ${args.host} is in use (another npm start?): stop it, or pick another with --port`);

  const env = { ...process.env, DATABASE_URL: roles.worker };
  // scripts/web.ts: Next.js behind the server that decides which forwarding headers to trust.
  const next = ["--import", "tsx", "scripts/web.ts", "--port", args.port, "--host", args.host, ...(args.dev ? ["--dev"] : [])];
  const webEnv = {
    ...process.env,
    DATABASE_URL: roles.app,
    BETTER_AUTH_SECRET: secret,
    NODE_ENV: (args.dev ? "development" : "production") as "development" | "production",
  };
  keep("web", next, webEnv);
  for (let i = 1; i <= Number(args.workers); i++) {
    // The demo's schedules come with its traffic (the e2e server runs without either).
    const schedules = args["no-traffic"] || !demo ? [] : ["--demo-schedules"];
    keep(`worker ${i}`, ["--import", "tsx", "scripts/worker.ts", "--drain-ms", "10000", ...schedules], env);
  }
  keep("supervisor", ["--import", "tsx", "scripts/supervisor.ts"], { ...env, JOBSCOPE_SUPERVISOR_ID: "sup-local" });
  const stopTraffic = args["no-traffic"] || !demo ? () => {} : startTraffic(owner, { log: say });

  shutdown = async (code: number, why = "stopping") => {
    if (stopping) return;
    stopping = true;
    say(`${why}: draining workers…`);
    stopTraffic();
    await Promise.all(children.map((c) => c.stop("SIGTERM", 40_000)));
    await closeDb(owner);
    if (advertise) advertiseUrl(args.data, null);
    await Promise.race([db.stop(), new Promise((r) => setTimeout(r, 15_000))]);
    say("stopped");
    process.exit(code);
  };
  process.on("SIGINT", () => void shutdown(0, "SIGINT"));
  process.on("SIGTERM", () => void shutdown(0, "SIGTERM"));
  for (const line of firstRun) say(line);
  say(`Jobscope is running at http://${args.host === "0.0.0.0" ? "localhost" : args.host}:${args.port}  (Ctrl-C stops it)`);
}

/**
 * Ctrl-C signals the terminal's whole process group, PostgreSQL included, and
 * PostgreSQL stops at once on SIGINT, before the workers have drained. So the
 * process the terminal started only relays: the real work runs in a process
 * group of its own (with PostgreSQL under it), stopped by one SIGTERM.
 */
function relay() {
  const child = spawn(node, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: "inherit",
    detached: true,
    // The demo's demo-only job types exist (lib/jobs/job-types.ts) unless JOBSCOPE_DEMO=0; a deployment's do not.
    env: { ...process.env, JOBSCOPE_DETACHED: "1", JOBSCOPE_DEMO: process.env.JOBSCOPE_DEMO ?? (demo ? "1" : "0") },
  });
  let relayed = false;
  const forward = () => {
    if (!relayed) child.kill("SIGTERM");
    relayed = true;
  };
  process.on("SIGINT", forward);
  process.on("SIGTERM", forward);
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

if (process.env.JOBSCOPE_DETACHED === "1") {
  main().catch(async (e: unknown) => {
    console.error(`[jobscope] failed to start: ${e instanceof Error ? e.message : String(e)}`);
    await shutdown(1);
  });
} else relay();
