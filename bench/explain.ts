// What the console's explain benchmarks share (bench/console-explain.ts, bench/params-search.ts): a
// connection as the console's role that records the statements of a run, and their EXPLAIN ANALYZE
// in the run's scope, each in a transaction that is rolled back.
import { sql, type SQL } from "drizzle-orm";
import { closeDb, connect, type Pool, type Tx } from "../lib/db/client";
import { execute } from "../lib/db/drizzle";
import { roleUrl } from "../lib/db/roles";
import { setScope, type Scope } from "../lib/db/scope";
import { generate } from "./generate";
import { benchServer, fmt, freshDb } from "./lib";

class Rollback extends Error {}

/** Run `fn` in a transaction that is rolled back afterwards (a recorded run, an EXPLAIN ANALYZE of a write). */
async function rolledBack(db: Pool, fn: (tx: Tx) => Promise<unknown>): Promise<void> {
  await db
    .transaction(async (tx) => {
      await fn(tx);
      throw new Rollback();
    })
    .catch((e: unknown) => {
      if (!(e instanceof Rollback)) throw e;
    });
}

export type Statement = { query: string; parameters: unknown[] };

/** EXPLAIN (ANALYZE, BUFFERS) of a recorded statement: its text, each `$n` bound to its parameter again. */
export function explainOf(s: Statement): SQL {
  const parts = s.query.split(/(\$\d+)/);
  const body = parts.map((p, i) => (i % 2 === 1 ? sql.param(s.parameters[Number(p.slice(1)) - 1]) : sql.raw(p)));
  return sql.join([sql.raw("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) "), ...body]);
}

/** The console's role on `owner`'s database, and `explain`: one more run of `run`, recorded, each statement explained. */
export function explainingApp(owner: string, secret: string) {
  // Every statement of a run is recorded while `sink` is set.
  let sink: Statement[] | null = null;
  const app = connect(roleUrl(owner, secret, "app"), { max: 2 });
  // The driver's debug hook sees every statement as it is sent, with its parameters, whichever way
  // drizzle built it (execute, prepared, the query builder): set on the pool's options, which the
  // driver reads for each statement.
  app.$client.options.debug = (_c, query, parameters) => {
    // Transaction control and settings are not statements EXPLAIN takes.
    if (sink && !/^(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|SET|RESET|SHOW|SELECT set_config)\b/i.test(query.trim()))
      sink.push({ query, parameters });
  };
  /** Each statement's EXPLAIN (ANALYZE, BUFFERS) text, in the order the run sent them. */
  async function explain(scope: Scope, run: (tx: Tx) => Promise<unknown>): Promise<string[]> {
    const seen: Statement[] = [];
    await rolledBack(app, async (tx) => {
      sink = seen;
      try {
        await setScope(tx, scope);
        await run(tx);
      } finally {
        sink = null;
      }
    });
    const explained: string[] = [];
    for (const s of seen) {
      await rolledBack(app, async (tx) => {
        await setScope(tx, scope);
        const out = await execute(tx, explainOf(s));
        explained.push(out.map((r) => Object.values(r)[0] as string).join("\n"));
      });
    }
    return explained;
  }
  return { app, explain };
}

/** The command-line options both explain benchmarks take (`secret`'s default names the benchmark). */
export const explainOptions = (secret: string) =>
  ({
    jobs: { type: "string", default: "1000000" },
    url: { type: "string" },
    secret: { type: "string", default: secret },
    keep: { type: "boolean", default: false },
  }) as const;

/**
 * The database to measure: `url` as given, or a fresh embedded server's database `name` filled by
 * generate() with `jobs` jobs; `stop` ends that server. `after` runs on the filled database first.
 */
export async function generatedDatabase(
  o: { url?: string; jobs: string; name: string; log: (s: string) => void; extraParams?: string },
  after?: (db: Pool) => Promise<string>,
): Promise<{ owner: string; stop: () => Promise<void> }> {
  if (o.url) return { owner: o.url, stop: async () => {} };
  const server = await benchServer(`.data/bench-${o.name.replace(/_/g, "-")}`, o.log);
  const owner = await freshDb(server.adminUrl, o.name, { jobscope: true });
  const db = connect(owner, { max: 2 });
  const t0 = performance.now();
  await generate(db, { count: Number(o.jobs), log: o.log, extraParams: o.extraParams });
  const more = after ? `; ${await after(db)}` : "";
  o.log(`generated ${fmt(Number(o.jobs))} jobs in ${fmt((performance.now() - t0) / 1000)} s${more}`);
  await closeDb(db);
  return { owner, stop: server.stop };
}

/** The report's plans, then the server stopped (or kept, with `--keep`, for another run with `--url`). */
export async function endReport(o: { plans: string[]; keep: boolean; owner: string; stop: () => Promise<void>; log: (s: string) => void }) {
  console.log("\n### Plans\n");
  console.log(o.plans.join("\n\n"));
  if (!o.keep) await o.stop();
  else o.log(`kept: ${o.owner}`);
}

/** Run a benchmark's main, exiting non-zero on failure. */
export function runMain(main: () => Promise<void>) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
