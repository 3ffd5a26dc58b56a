// The console at scale, measured over real HTTP against `next start`: signed in
// as the demo operator and as a demo tenant's user (better-auth's POST
// /api/auth/sign-in/email), the web process connecting as the RLS-bound
// `jobscope_app` role, as in production.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { loadJobs } from "../app/jobs/load";
import { closeDb, connect, type Db } from "../lib/db/client";
import { freePort } from "../lib/db/embedded";
import { provisionRoles } from "../lib/db/roles";
import { seedDemoUsers } from "../lib/demo/seed-users";
import { DEMO_PASSWORD, DEMO_USERS } from "../lib/demo/users";
import { withScope } from "../lib/db/scope";
import { encodeCursor, parseJobFilters } from "../lib/jobs/filters";
import { countByState, getJobDetail, listJobs } from "../lib/jobs/queries";
import { transition } from "../lib/jobs/transition";
import { runChild } from "../lib/run-child";
import { buildNeeded } from "../scripts/build-needed";
import { pct, sleep, waitUntil } from "./lib";
import { sql } from "drizzle-orm";
import { execute } from "../lib/db/drizzle";

export const DIST_DIR = process.env.JOBSCOPE_BENCH_DIST_DIR ?? ".next-bench";

/** p50/p95 of `n` requests after the warm-up, and the slowest warm-up request (what a cold console's first requests cost). */
export type Timing = { name: string; n: number; p50: number; p95: number; warmupMax: number; status: string };

/**
 * Requests of each kind before the measured ones. A pooled connection plans a statement afresh for
 * its first five executions (PostgreSQL's custom plans) before it settles on one plan, and at 10M
 * jobs a plan of the counts (over job_log's day partitions) costs 15–20 ms: with three warm-ups the
 * first kind measured read the pool's cold plans into its p95 (docs/benchmarks.md, "Console at scale").
 */
export const WARMUP = 10;

/** `WARMUP` + `n` sequential runs: the measured times and the slowest warm-up. */
async function timeRuns(n: number, run: (i: number) => Promise<void>): Promise<{ times: number[]; warmupMax: number }> {
  const times: number[] = [];
  let warmupMax = 0;
  for (let i = 0; i < n + WARMUP; i++) {
    const t = performance.now();
    await run(i);
    const ms = performance.now() - t;
    if (i >= WARMUP) times.push(ms);
    else warmupMax = Math.max(warmupMax, ms);
  }
  return { times, warmupMax };
}

/** `next build` into the bench's own dist dir, when the sources are newer than its last build. */
export async function buildConsole(log: (s: string) => void, databaseUrl: string) {
  if (!buildNeeded(DIST_DIR)) return;
  log(`building the console into ${DIST_DIR} (next build)…`);
  // `next build` adds its dist dir's generated types to tsconfig.json's `include`: the bench's
  // build leaves the checkout's tsconfig as it found it.
  const tsconfig = readFileSync("tsconfig.json", "utf8");
  let code;
  try {
    // Awaited, not spawnSync: the bench's embedded server logs through this process (lib/run-child.ts).
    code = await runChild(process.execPath, ["node_modules/next/dist/bin/next", "build"], {
      // The layout reads the database while pages prerender: the build needs one.
      env: { ...process.env, NODE_ENV: "production", JOBSCOPE_DIST_DIR: DIST_DIR, DATABASE_URL: databaseUrl },
    });
  } finally {
    writeFileSync("tsconfig.json", tsconfig);
  }
  if (code !== 0) throw new Error("next build failed");
}

/** The id of a server action, from the build's manifest; a build without it fails the measurement rather than skip a row. */
function actionId(exportName: string, file: string): string {
  const manifest = path.join(DIST_DIR, "server", "server-reference-manifest.json");
  const m = JSON.parse(readFileSync(manifest, "utf8")) as { node: Record<string, { exportedName?: string; filename?: string }> };
  for (const [id, entry] of Object.entries(m.node)) {
    if (entry.exportedName === exportName && (!entry.filename || entry.filename.includes(file))) return id;
  }
  throw new Error(`the console build has no server action ${exportName} in ${file}`);
}

export async function startConsole(ownerUrl: string, log: (s: string) => void): Promise<{ base: string; stop: () => Promise<void> }> {
  const secret = randomBytes(32).toString("hex");
  const roles = await provisionRoles(ownerUrl, secret);
  const db = connect(ownerUrl, { max: 1 });
  await seedDemoUsers(db);
  await closeDb(db);
  await buildConsole(log, roles.app);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(process.execPath, ["node_modules/next/dist/bin/next", "start", "-p", String(port), "-H", "127.0.0.1"], {
    stdio: ["ignore", "ignore", "inherit"],
    env: {
      ...process.env,
      DATABASE_URL: roles.app,
      BETTER_AUTH_SECRET: secret,
      BETTER_AUTH_URL: base,
      NODE_ENV: "production",
      JOBSCOPE_DIST_DIR: DIST_DIR,
      JOBSCOPE_SIGN_IN_PER_MINUTE: "1000",
    },
  });
  await waitUntil(
    "next start",
    async () =>
      fetch(`${base}/api/auth/ok`).then(
        (r) => r.status < 500,
        () => false,
      ),
    120_000,
    250,
  );
  return {
    base,
    stop: async () => {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await Promise.race([exited, sleep(5000)]);
    },
  };
}

/** Who the console is measured as: the demo operator (every tenant) or a demo tenant's user (RLS-bound to it). */
export type ConsoleViewer = "operator" | "acme";

export async function signIn(base: string, who: ConsoleViewer): Promise<string> {
  const res = await fetch(`${base}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: base },
    body: JSON.stringify({ email: DEMO_USERS[who].email, password: DEMO_PASSWORD }),
  });
  if (!res.ok) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  const cookies = res.headers.getSetCookie().map((c) => c.split(";")[0]);
  return cookies.join("; ");
}

/**
 * What the measured requests act on: a cursor 75% down the newest-first list (of every job, or of
 * one tenant's), the newest job with a 20-attempt history (every tenant's, or one tenant's), and
 * the newest dead jobs with the usual budget, to replay.
 */
export async function pickTargets(db: Db, samples: number, tenant: string | null = null) {
  const [total] = await execute<{ n: number }>(
    db,
    sql`
    SELECT CASE WHEN ${tenant}::text IS NULL THEN (SELECT reltuples::bigint FROM pg_class WHERE relname = 'job_catalog')
                ELSE (SELECT count(*) FROM job_catalog WHERE tenant_id = ${tenant}) END::int AS n`,
  );
  const [deep] = await execute<{ at: string; id: string }>(
    db,
    sql`
    SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at, id FROM job_catalog
     WHERE ${tenant}::text IS NULL OR tenant_id = ${tenant}
     ORDER BY ${tenant === null ? sql`created_at DESC NULLS LAST, id DESC NULLS LAST` : sql`tenant_id, created_at DESC NULLS LAST, id DESC NULLS LAST`}
     OFFSET ${Math.floor((total?.n ?? 0) * 0.75)} LIMIT 1`,
  );
  const [many] = await execute<{ id: string }>(
    db,
    sql`
    SELECT job_id AS id FROM job_attempts WHERE end_to = 'dead' AND attempt = 20 AND (${tenant}::text IS NULL OR tenant_id = ${tenant})
     ORDER BY finished_at DESC LIMIT 1`,
  );
  // The dead tab's newest jobs (the owner's connection sees every tenant's).
  const dead = (await listJobs(db, parseJobFilters({ state: "dead", limit: "200" }))).jobs
    .filter((j) => j.maxAttempts === 3)
    .slice(0, samples + WARMUP + 2)
    .map((j) => ({ id: j.id, stateVersion: j.stateVersion }));
  return { deep, many, dead };
}

/**
 * p50/p95 of each console request, `samples` sequential requests each, after a warm-up, as `who`
 * (signed in with `cookie`). `ownerUrl` picks the jobs: the one with the longest history, a deep
 * cursor, dead jobs to replay — among the tenant's own for a tenant's user, whose rows are named
 * "tenant acme: …". A tenant's user has no tenant filter and no replay.
 */
export async function measureConsole(
  ownerUrl: string,
  base: string,
  cookie: string,
  samples: number,
  who: ConsoleViewer = "operator",
): Promise<Timing[]> {
  const tenant = DEMO_USERS[who].tenantId;
  const db = connect(ownerUrl, { max: 1 });
  const { deep, many, dead } = await pickTargets(db, samples, tenant);
  await closeDb(db);
  const cursor = deep ? encodeCursor({ at: deep.at, id: deep.id }) : "";
  const headers = { cookie, Origin: base };
  const named = (name: string) => (tenant ? `tenant ${tenant}: ${name}` : name);

  const timed = async (name: string, req: (i: number) => Promise<Response>, n = samples): Promise<Timing> => {
    const statuses = new Map<number, number>();
    const { times, warmupMax } = await timeRuns(n, async (i) => {
      const res = await req(i);
      await res.arrayBuffer();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    });
    return {
      name: named(name),
      n,
      p50: pct(times, 50),
      p95: pct(times, 95),
      warmupMax,
      status: [...statuses].map(([s, c]) => `${s}×${c}`).join(" "),
    };
  };

  const out: Timing[] = [];
  out.push(await timed("first list page (GET /api/jobs: 50 jobs + tab counts)", () => fetch(`${base}/api/jobs`, { headers })));
  out.push(await timed("deep keyset page (GET /api/jobs?after=…, 75% down)", () => fetch(`${base}/api/jobs?after=${cursor}`, { headers })));
  if (tenant)
    out.push(await timed("succeeded tab, filtered by type", () => fetch(`${base}/api/jobs?state=succeeded&type=media.render`, { headers })));
  else
    out.push(
      await timed("succeeded tab, filtered by tenant and type", () =>
        fetch(`${base}/api/jobs?state=succeeded&tenant=acme&type=media.render`, { headers }),
      ),
    );
  out.push(await timed("counts (GET /api/counts)", () => fetch(`${base}/api/counts`, { headers })));
  if (many) out.push(await timed("job detail, 20 attempts (GET /api/jobs/:id)", () => fetch(`${base}/api/jobs/${many.id}`, { headers })));
  if (!tenant) {
    // The console's replay of one dead job: the confirm of its dry run, as the job's page sends it.
    const replayId = actionId("applyOperationAction", "app/_operation/actions");
    if (dead.length <= WARMUP) throw new Error(`only ${dead.length} dead jobs to replay`);
    out.push(
      await timed(
        "replay a dead job (server action applyOperationAction)",
        async (i) => {
          const job = dead[i % dead.length]!;
          const res = await fetch(`${base}/jobs/${job.id}`, {
            method: "POST",
            headers: { ...headers, "Next-Action": replayId, "Content-Type": "text/plain;charset=UTF-8", Accept: "text/x-component" },
            body: JSON.stringify([{ operation: "replay", selection: { kind: "ids", ids: [job.id] }, jobs: [[job.id, "dead", job.stateVersion]] }]),
          });
          // A 200 carries the action's answer: a refusal is a failed measurement, not a fast one.
          const body = await res.text();
          if (!body.includes('"applied":1')) throw new Error(`the replay of ${job.id} was not applied: ${body.slice(0, 300)}`);
          return new Response(body, { status: res.status });
        },
        Math.min(samples, dead.length - WARMUP),
      ),
    );
  }
  return out;
}

/**
 * The same reads and the replay without HTTP: the library functions the console's routes and
 * actions call, each in a staff-scoped transaction. Used when the console cannot be built or
 * started; it leaves out Next.js and the session lookup, so it is a lower bound.
 */
export async function measureConsoleLib(ownerUrl: string, samples: number): Promise<Timing[]> {
  const db = connect(ownerUrl, { max: 2 });
  const { deep, many, dead } = await pickTargets(db, samples);
  const page = (params: Record<string, string>) => withScope(db, { all: true }, (tx) => loadJobs(tx, parseJobFilters(params), false));
  const timed = async (name: string, fn: (i: number) => Promise<unknown>, n = samples): Promise<Timing> => {
    const { times, warmupMax } = await timeRuns(n, async (i) => void (await fn(i)));
    return { name: `${name} [library, no HTTP]`, n, p50: pct(times, 50), p95: pct(times, 95), warmupMax, status: "n/a" };
  };
  const out: Timing[] = [];
  out.push(await timed("first list page + tab counts", () => page({})));
  if (deep) out.push(await timed("deep keyset page (75% down)", () => page({ after: encodeCursor({ at: deep.at, id: deep.id }) })));
  out.push(await timed("succeeded tab, filtered by tenant and type", () => page({ state: "succeeded", tenant: "acme", type: "media.render" })));
  out.push(await timed("counts", () => withScope(db, { all: true }, (tx) => countByState(tx, parseJobFilters({})))));
  if (many) out.push(await timed("job detail, 20 attempts", () => withScope(db, { all: true }, (tx) => getJobDetail(tx, many.id))));
  if (dead.length > WARMUP) {
    out.push(
      await timed(
        "replay a dead job (transition)",
        (i) => {
          const job = dead[i % dead.length]!;
          return withScope(db, { all: true }, (tx) =>
            transition(tx, {
              jobId: job.id,
              event: "replay",
              actor: { kind: "operator", id: "bench-operator" },
              expected: { state: "dead", version: job.stateVersion },
            }),
          );
        },
        Math.min(samples, dead.length - WARMUP),
      ),
    );
  }
  await closeDb(db);
  return out;
}
