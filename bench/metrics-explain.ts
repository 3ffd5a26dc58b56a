// The cost of GET /metrics and of the supervisor's metrics roll-up on generated data:
//   npx tsx bench/metrics-explain.ts --jobs 1000000          (a fresh embedded server, generated)
//   npx tsx bench/metrics-explain.ts --url <owner url>       (a database generate() filled)
// The scrape runs as the console does (lib/metrics/http.ts): `jobscope_app`, staff scope; p50/p95 of
// --samples runs after three warm-ups, then EXPLAIN (ANALYZE, BUFFERS) of each of its statements.
// The roll-up reads one window of the generated history (--window-min minutes ending at the newest
// ended attempt): its time, rows and the plan of its statement. Markdown on stdout.
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { closeDb, connect } from "../lib/db/client";
import { provisionRoles, roleUrl } from "../lib/db/roles";
import { withScope } from "../lib/db/scope";
import { rollUpMetrics } from "../lib/metrics/rollup";
import { collectMetrics } from "../lib/metrics/scrape";
import { checkSample, generate } from "./generate";
import { explainOf, type Statement } from "./explain";
import { benchServer, fmt, freshDb, pct } from "./lib";
import { sql } from "drizzle-orm";
import { execute } from "../lib/db/drizzle";

const { values: args } = parseArgs({
  options: {
    jobs: { type: "string", default: "1000000" },
    url: { type: "string" },
    secret: { type: "string", default: "metrics-explain" },
    samples: { type: "string", default: "20" },
    "window-min": { type: "string", default: "60" },
    keep: { type: "boolean", default: false },
  },
});
const log = (s: string) => console.error(`[metrics-explain] ${new Date().toISOString().slice(11, 19)} ${s}`);

async function main() {
  let owner: string;
  let stop = async () => {};
  if (args.url) owner = args.url;
  else {
    const server = await benchServer(".data/bench-metrics-explain", log);
    stop = args.keep ? async () => log(`kept the server: ${server.adminUrl}`) : server.stop;
    owner = await freshDb(server.adminUrl, "metrics_explain", { jobscope: true });
    const db = connect(owner, { max: 2 });
    const t0 = performance.now();
    await generate(db, { count: Number(args.jobs), log });
    log(
      `generated ${fmt(Number(args.jobs))} jobs in ${fmt((performance.now() - t0) / 1000)} s; integrity check: ${(await checkSample(db, 200)).length} problems`,
    );
    await closeDb(db);
  }
  await provisionRoles(owner, args.secret);
  const ownerDb = connect(owner, { max: 1 });
  const [sizes] = await execute<{ jobs: number; live: number; attempts: number }>(
    ownerDb,
    sql`
    SELECT (SELECT reltuples::bigint FROM pg_class WHERE relname = 'job_catalog')::int AS jobs,
           (SELECT count(*) FROM jobs_live)::int AS live,
           (SELECT reltuples::bigint FROM pg_class WHERE relname = 'job_attempts')::int AS attempts`,
  );
  const out: string[] = [
    `Data: ${fmt(sizes!.jobs)} jobs (estimate), ${fmt(sizes!.live)} live, ${fmt(sizes!.attempts)} ended attempts (estimate).`,
    "",
  ];

  // The roll-up of one window: the cursor placed --window-min before the newest ended attempt.
  const windowMs = Number(args["window-min"]) * 60_000;
  const [{ newest } = { newest: new Date() }] = await execute<{ newest: Date }>(ownerDb, sql`SELECT max(finished_at) AS newest FROM job_attempts`);
  const from = new Date(newest.getTime() - windowMs);
  const [{ n } = { n: 0 }] = await execute<{ n: number }>(
    ownerDb,
    sql`SELECT count(*)::int AS n FROM job_attempts WHERE finished_at > ${from} AND finished_at <= ${newest}`,
  );
  const rollups: number[] = [];
  let plan = "";
  let captured: Statement | null = null;
  // One connection for every pass, as the supervisor's pool: the first pass (connection, prepare) is a warm-up.
  const db = connect(owner, { max: 1 });
  // The driver's debug hook (bench/explain.ts) records the roll-up's statement with its parameters.
  db.$client.options.debug = (_c, query, parameters) => {
    if (/INSERT INTO metric_totals/.test(query)) captured = { query, parameters };
  };
  for (let i = 0; i < 6; i++) {
    await execute(
      ownerDb,
      sql`INSERT INTO metric_cursors (source, upto_at) VALUES ('history', ${from}) ON CONFLICT (source) DO UPDATE SET upto_at = ${from}`,
    );
    const settleMs = Math.max(0, Date.now() - newest.getTime());
    const t0 = performance.now();
    const r = await rollUpMetrics(db, { settleMs, maxSpanMs: windowMs });
    if (i > 0) rollups.push(performance.now() - t0);
    log(`roll-up of ${fmt(n)} attempts: ${fmt(performance.now() - t0, 1)} ms, ${r.series} series`);
  }
  if (captured) {
    const c = captured as Statement;
    await db
      .transaction(async (tx) => {
        const rows = await execute(tx, explainOf(c));
        plan = rows.map((x) => Object.values(x)[0] as string).join("\n");
        throw new Error("rollback");
      })
      .catch(() => {});
  }
  await closeDb(db);
  out.push(
    `Roll-up of a ${args["window-min"]}-minute window (${fmt(n)} ended attempts): p50 ${fmt(pct(rollups, 50), 1)} ms, max ${fmt(Math.max(...rollups), 1)} ms (5 passes after a warm-up, one pooled connection).`,
    "",
  );

  // The scrape.
  const seen: Statement[] = [];
  let record = false;
  const app = connect(roleUrl(owner, args.secret, "app"), { max: 2 });
  app.$client.options.debug = (_c, query, parameters) => {
    if (record && !/^(BEGIN|COMMIT|ROLLBACK|SELECT set_config)\b/i.test(query.trim())) seen.push({ query, parameters });
  };
  const samples = Number(args.samples);
  const times: number[] = [];
  const reads: number[] = [];
  let bytes = 0;
  for (let i = 0; i < samples + 3; i++) {
    record = i === samples + 2;
    const t0 = performance.now();
    const { text } = await withScope(app, { all: true }, (tx) => collectMetrics(tx));
    if (i >= 3) times.push(performance.now() - t0);
    if (i >= 3) reads.push(Number(/^jobscope_metrics_scrape_read_seconds (\S+)$/m.exec(text)?.[1] ?? NaN) * 1000);
    bytes = text.length;
  }
  record = false;
  out.push(
    `Scrape (GET /metrics' reads and formatting, staff scope, ${samples} runs): p50 ${fmt(pct(times, 50), 1)} ms, p95 ${fmt(pct(times, 95), 1)} ms (of which the reads: p50 ${fmt(pct(reads, 50), 1)} ms), ${fmt(bytes)} bytes; load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}.`,
    "",
  );
  log(out.at(-2)!);
  for (const s of seen) {
    await withScope(app, { all: true }, async (tx) => {
      const rows = await execute(tx, explainOf(s));
      out.push("```", s.query.trim().split("\n")[0]!.slice(0, 120), rows.map((x) => Object.values(x)[0] as string).join("\n"), "```", "");
    });
  }
  out.push("Roll-up statement:", "```", plan, "```");
  console.log(out.join("\n"));
  await closeDb(app);
  await closeDb(ownerDb);
  await stop();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
