import { idQueryOf } from "../uuid";
import { idPieceIds } from "./id-lookup";
import type { JobState } from "../fsm/table";
import { POISON_LOOKBACK_MS, POISON_SUSPECT_CRASHES } from "../insight/windows";
import { WORKER_LOST_CLASS } from "./poison";
import { decodeCursor, isOldestFirst, orderOf, type JobFilters, type Order } from "./filters";
import { parseParamsFilter } from "./params-filter";
import { finishedJoins, finishesOf, liveState, num, stateLit, TERMINAL, type Fragment } from "./read-model";
import { sql } from "drizzle-orm";

/**
 * Where a page of the jobs list comes from: an index that walks the jobs in the page's order, the
 * filters it does not serve checked row by row. A walk reads at most SCAN_BUDGET rows: when fewer
 * than a page match in them, the page is short and its `next` cursor is where the walk stopped, so
 * no request reads more than the budget however rare the combination of filters (a page can even
 * be empty, with a cursor to look further). Nothing is read in proportion to the tables.
 *
 * | filters (first that applies)   | source, index                                                   | order    |
 * |--------------------------------|-----------------------------------------------------------------|----------|
 * | q (id, id piece, or key)       | job_catalog_pkey (a range for a start), _id_suffix_idx (an end) | tab's    |
|                                | and _idempotency_key_idx                                        |          |
 * | poison                         | job_attempts_lease_lost_idx: the suspects of POISON_LOOKBACK_MS | tab's    |
 * | operation                      | bulk_operation_items_pkey: the jobs a bulk operation froze      | tab's    |
 * | worker                         | job_attempts_worker_trouble_idx + jobs_live.lease_owner         | tab's    |
 * | params (containment)           | the tab's own walk below with params checked, when it fills a   | tab's    |
 * |                                | page; else job_catalog_params_idx (GIN): the newest             |          |
 * |                                | PARAMS_SET_CAP matches (jobscope_params_match, drizzle/0024)    |          |
 * | a live state's tab             | jobs_live_waiting_idx / jobs_live_tenant_<state>_idx; claimed   | created  |
 * |                                | and running through jobs_live_lease_idx (few rows)              |          |
 * | a finished state's tab, or     | job_attempts_final_idx + job_log_final_idx (a tenant: their     | finished |
 * | sort=finished, or a finished   | per-state *_tenant_<state>_idx), merged newest first; a dead    |          |
 * | range on the All tab           | finish an operator replayed since is left out                   |          |
 * | errorClass on the All tab      | job_attempts_error_class_idx, by job id                         | id       |
 * | the All tab                    | job_catalog_*_created_idx (tenant+type, tenant, type, queue)    | created  |
 *
 * A finished state's tab is always in the order jobs finished (as River UI and Oban Web list
 * completed jobs), also when the console asks for created order: no index orders the finished jobs
 * of one state by creation, so that order would walk the catalog checking each job's last
 * transition, a walk as long as the state is rare. The errorClass filter on the All tab pages by
 * job id: ids are UUIDv7 (lib/jobs/ids.ts), the order of creation to the millisecond (jobs migrated
 * from before 0012 have random ids and come in a stable but arbitrary order), where a walk of the
 * catalog would read as many jobs as it takes to meet the class, as far back as it last occurred.
 */

/**
 * Rows (id, at, ok, rn) in the page's order: the matches (`ok`), at most `limit`, and the row where
 * the walk stopped (`rn` = SCAN_BUDGET) when it read its whole budget.
 */
export type Source = { order: Order; sql: Fragment };

/** How many rows a walk reads at most for one page (or one count). */
export const SCAN_BUDGET = 2_000;

/**
 * Cursor comparisons for a walk: `after` goes to the next page, `before` back. `asc`: the walk reads
 * its index from the oldest end — paging back in the newest-first orders, or forward when the list
 * is oldest first (`oldest`).
 */
export type Keyset = { after: boolean; before: boolean; oldest: boolean; asc: boolean; at: string | null; id: string | null };

export function keysetOf(f: Pick<Partial<JobFilters>, "after" | "before" | "sort">): Keyset {
  const after = decodeCursor(f.after);
  const before = after ? null : decodeCursor(f.before);
  const c = after ?? before;
  const oldest = isOldestFirst(f);
  return { after: after !== null, before: before !== null, oldest, asc: (before !== null) !== oldest, at: c?.exact ?? null, id: c?.id ?? null };
}

/** `(t, i) < cursor` (or `>` walking from the oldest end), in the cursor's exact microseconds. */
function beyond(k: Keyset, t: Fragment, i: Fragment): Fragment {
  if (k.at === null || k.id === null) return sql``;
  return k.asc
    ? sql`AND (${t}, ${i}) > (${k.at}::text::timestamptz, ${k.id}::uuid)`
    : sql`AND (${t}, ${i}) < (${k.at}::text::timestamptz, ${k.id}::uuid)`;
}

/** ORDER BY direction as the index has it: the catalog's and jobs_live's are DESC NULLS LAST, the finished indexes plain DESC. */
const dir = (k: Keyset, nullsLast: boolean): Fragment =>
  k.asc ? (nullsLast ? sql`ASC NULLS FIRST` : sql`ASC`) : nullsLast ? sql`DESC NULLS LAST` : sql`DESC`;

type F = Omit<Partial<JobFilters>, "after" | "before" | "limit">;
type CatalogFilter = "tenant" | "type" | "queue" | "created" | "params";

const and = (parts: Fragment[]): Fragment => parts.reduce((acc, p) => sql`${acc} AND ${p}`, sql``);
const all = (parts: Fragment[]): Fragment => (parts.length ? parts.reduce((acc, p) => sql`${acc} AND ${p}`) : sql`TRUE`);

/** The params search as JSON text for `@>`; null when there is none or it does not parse (the page says why: paramsProblem). */
export function paramsJson(f: Pick<F, "params">): string | null {
  if (!f.params) return null;
  const p = parseParamsFilter(f.params);
  return p.ok ? p.json : null;
}

/** The catalog's filters on alias `x` (job_catalog or jobs_live: both carry all but params), those named in `only`. */
function catalogPreds(f: F, x: string, only: readonly CatalogFilter[] = ["tenant", "type", "queue", "created", "params"]): Fragment[] {
  const col = (name: string) => sql.raw(`${x}.${name}`);
  const parts: Fragment[] = [];
  if (f.tenant && only.includes("tenant")) parts.push(sql`${col("tenant_id")} = ${f.tenant}`);
  if (f.type && only.includes("type")) parts.push(sql`${col("type")} = ${f.type}`);
  if (f.queue && only.includes("queue")) parts.push(sql`${col("queue")} = ${f.queue}`);
  if (f.createdFrom && only.includes("created")) parts.push(sql`${col("created_at")} >= ${f.createdFrom}`);
  if (f.createdTo && only.includes("created")) parts.push(sql`${col("created_at")} < ${f.createdTo}`);
  const params = paramsJson(f);
  if (params !== null && only.includes("params")) parts.push(sql`${col("params")} @> ${params}::text::jsonb`);
  return parts;
}

/** The catalog's filters as a per-row check of job `id` (a probe of job_catalog_pkey). */
function catalogProbe(f: F, id: Fragment, only: readonly CatalogFilter[]): Fragment[] {
  const preds = catalogPreds(f, "cp", only);
  return preds.length ? [sql`EXISTS (SELECT 1 FROM job_catalog cp WHERE cp.id = ${id} ${and(preds)})`] : [];
}

const poisonSince = sql`now() - ${sql.raw(`interval '${POISON_LOOKBACK_MS} milliseconds'`)}`;

/**
 * The filters found in a job's attempts, checked per row on job id `id`. `worker`: the jobs whose
 * attempts did not succeed on that worker, or that it holds now (its lease). `poison`:
 * POISON_SUSPECT_CRASHES or more worker crashes blamed on it in the last POISON_LOOKBACK_MS.
 */
function attemptPreds(f: F, id: Fragment, skip: { errorClass?: boolean; worker?: boolean; poison?: boolean } = {}): Fragment[] {
  const parts: Fragment[] = [];
  if (f.errorClass && !skip.errorClass)
    parts.push(sql`EXISTS (SELECT 1 FROM job_attempts ae WHERE ae.job_id = ${id} AND ae.error_class = ${f.errorClass})`);
  if (f.worker && !skip.worker) {
    parts.push(sql`(EXISTS (SELECT 1 FROM job_attempts aw WHERE aw.job_id = ${id} AND aw.worker_id = ${f.worker} AND aw.outcome <> 'succeeded')
                    OR EXISTS (SELECT 1 FROM jobs_live lw WHERE lw.id = ${id} AND lw.lease_owner = ${f.worker}))`);
  }
  if (f.poison && !skip.poison) {
    parts.push(sql`(SELECT count(*) FROM job_attempts ap WHERE ap.job_id = ${id} AND ap.outcome = 'lease_expired' AND ap.error_class IS DISTINCT FROM ${WORKER_LOST_CLASS}
                      AND ap.finished_at >= ${poisonSince}) >= ${num(POISON_SUSPECT_CRASHES)}`);
  }
  return parts;
}

/** The source of the list under `f` (`limit` matches at most), in its order; null when nothing can match. */
export function listSource(f: F, k: Keyset, limit: number): Source | null {
  const order = orderOf(f);
  if (order === null) return null;
  // A params search that does not parse matches nothing (the page and the API refuse it first).
  if (f.params && paramsJson(f) === null) return null;
  if (f.q || f.poison || f.worker || f.operation) return { order, sql: fromSet(f, order, k, limit) };
  if (f.params) return { order, sql: fromParams(f, order, k, limit) };
  return { order, sql: walkOf(f, order, k, limit) };
}

/** The tab's own walk: its index, every other filter checked row by row. */
function walkOf(f: F, order: Order, k: Keyset, limit: number): Fragment {
  if (order === "created" && f.state) return fromLive(f, f.state, k, limit);
  if (order === "finished") return fromFinishes(f, f.state ? [f.state] : TERMINAL, k, limit);
  if (order === "id") return fromErrorClass(f, k, limit);
  return fromCatalog(f, k, limit);
}

/** How many of a params search's newest matches its GIN path reads at most (then ordered and checked). */
export const PARAMS_SET_CAP = 10_000;

/**
 * A params search: first the tab's own walk (its SCAN_BUDGET newest rows) with the containment
 * checked per row, which finds a page when matches are common; only when it does not (a rare value,
 * such as one customer's id) the GIN index: the newest PARAMS_SET_CAP matches in the tenant and
 * created range (jobscope_params_match), completed and checked like any small set (fromSet). One
 * statement: the second branch runs only when the first came short (a one-time filter).
 */
function fromParams(f: F, order: Order, k: Keyset, limit: number): Fragment {
  const walk = walkOf(f, order, k, limit);
  const set = fromSet(f, order, k, limit);
  return sql`
    WITH pw AS MATERIALIZED (${walk}), pf AS (SELECT count(*) FILTER (WHERE ok) >= ${num(limit)} AS enough FROM pw)
    SELECT pw.id, pw.at, pw.ok, pw.rn FROM pw WHERE (SELECT enough FROM pf)
    UNION ALL
    SELECT ps.id, ps.at, ps.ok, ps.rn FROM (${set}) ps WHERE NOT (SELECT enough FROM pf)`;
}

/**
 * The rows of `walk` (ordered by `order`, SCAN_BUDGET rows at most) that pass `checks`, evaluated
 * row by row as the walk goes, until `limit` of them; and the last row of a walk that read its whole
 * budget before that.
 */
export function budgeted(walk: Fragment, order: Fragment, checks: Fragment[], limit: number): Fragment {
  return sql`
    SELECT s.id, s.at, s.ok, s.rn FROM (
      SELECT w.id, w.at, ${all(checks)} AS ok, (row_number() OVER (ORDER BY ${order}))::int AS rn FROM (${walk}) w
    ) s
     WHERE s.ok OR s.rn = ${num(SCAN_BUDGET)}
     LIMIT ${num(limit)}`;
}

/** The All tab: the catalog newest first, through the created index that its narrowest filter picks. */
function fromCatalog(f: F, k: Keyset, limit: number): Fragment {
  // job_catalog_tenant_type_created_idx, _tenant_, _type_, _queue_, or job_catalog_created_idx; the created range bounds each.
  const led: CatalogFilter[] = f.tenant ? (f.type ? ["tenant", "type"] : ["tenant"]) : f.type ? ["type"] : f.queue ? ["queue"] : [];
  const rest = (["tenant", "type", "queue", "params"] as const).filter((x) => !led.includes(x));
  const walk = sql`
    SELECT c.id, c.created_at AS at, c.tenant_id, c.type, c.queue, c.params FROM job_catalog c
     WHERE TRUE ${and(catalogPreds(f, "c", [...led, "created"]))} ${beyond(k, sql`c.created_at`, sql`c.id`)}
     ORDER BY c.created_at ${dir(k, true)}, c.id ${dir(k, true)}
     LIMIT ${num(SCAN_BUDGET)}`;
  // The attempts' filters: an error class with a params search (orderOf) is checked here.
  const checks = [...catalogPreds(f, "w", rest), ...attemptPreds(f, sql`w.id`)];
  return budgeted(walk, sql`w.at ${dir(k, true)}, w.id ${dir(k, true)}`, checks, limit);
}

/**
 * A live state's tab: its live rows newest first (the waiting indexes; claimed and running rows
 * through the lease index). The state leads the ORDER BY as it leads the index (see finishesOf).
 */
function fromLive(f: F, state: JobState, k: Keyset, limit: number): Fragment {
  const walk = sql`
    SELECT l.id, l.created_at AS at, l.state, l.type, l.queue FROM jobs_live l
     WHERE ${liveState(state)} ${and(catalogPreds(f, "l", ["tenant", "created"]))} ${beyond(k, sql`l.created_at`, sql`l.id`)}
     ORDER BY l.state ${k.asc ? sql`DESC` : sql`ASC`}, l.created_at ${dir(k, true)}, l.id ${dir(k, true)}
     LIMIT ${num(SCAN_BUDGET)}`;
  const checks = [...catalogPreds(f, "w", ["type", "queue"]), ...catalogProbe(f, sql`w.id`, ["params"]), ...attemptPreds(f, sql`w.id`)];
  const order = sql`w.state ${k.asc ? sql`DESC` : sql`ASC`}, w.at ${dir(k, true)}, w.id ${dir(k, true)}`;
  return budgeted(walk, order, checks, limit);
}

/**
 * Finished jobs newest finished first: each state's finishing transitions from both tables
 * (lib/jobs/read-model.ts, finishesOf), merged in (at, id) order. One state's are merged as they
 * are read, ordered by (state, at, id) as its index is (see finishesOf); several states' are sorted,
 * each table reading as many as a page needs (the budget when rows are checked).
 */
function fromFinishes(f: F, states: readonly JobState[], k: Keyset, limit: number): Fragment {
  const bounds = (t: Fragment, i: Fragment) =>
    sql`${f.finishedFrom ? sql`AND ${t} >= ${f.finishedFrom}` : sql``} ${f.finishedTo ? sql`AND ${t} < ${f.finishedTo}` : sql``} ${beyond(k, t, i)}`;
  const checks = [...catalogProbe(f, sql`w.id`, ["type", "queue", "created", "params"]), ...attemptPreds(f, sql`w.id`)];
  const walkOf = { tenant: f.tenant, bounds, ascending: k.asc, limit: checks.length ? SCAN_BUDGET : limit };
  const finished = states.filter((s) => TERMINAL.includes(s));
  const union = finished.map((s) => finishesOf(s, walkOf)).reduce((acc, q) => sql`${acc} UNION ALL ${q}`);
  const d = dir(k, false);
  const order = (x: string) =>
    finished.length === 1
      ? sql`${sql.raw(`${x}.state`)} ${k.asc ? sql`DESC` : sql`ASC`}, ${sql.raw(`${x}.at`)} ${d}, ${sql.raw(`${x}.id`)} ${d}`
      : sql`${sql.raw(`${x}.at`)} ${d}, ${sql.raw(`${x}.id`)} ${d}`;
  const walk = sql`SELECT u.id, u.at, u.state FROM (${union}) u ORDER BY ${order("u")} LIMIT ${num(SCAN_BUDGET)}`;
  return budgeted(walk, order("w"), checks, limit);
}

/** The All tab under an error class: the jobs with an attempt of that class, by job id (see the table above). */
function fromErrorClass(f: F, k: Keyset, limit: number): Fragment {
  const idBound = k.id === null ? sql`` : k.asc ? sql`AND a.job_id > ${k.id}::uuid` : sql`AND a.job_id < ${k.id}::uuid`;
  const o = k.asc ? sql`ASC` : sql`DESC`;
  // `at` is the job's creation (the cursor's time); the walk is by id.
  const walk = sql`
    SELECT p.id, (SELECT c.created_at FROM job_catalog c WHERE c.id = p.id) AS at
      FROM (SELECT DISTINCT a.job_id AS id FROM job_attempts a WHERE a.error_class = ${f.errorClass ?? ""} ${idBound} ORDER BY a.job_id ${o} LIMIT ${num(SCAN_BUDGET)}) p
     ORDER BY p.id ${o}`;
  return budgeted(walk, sql`w.id ${o}`, catalogProbe(f, sql`w.id`, ["tenant", "type", "queue", "created", "params"]), limit);
}

/** How many of a worker's unsuccessful attempts, newest first, its filter reads. */
export const WORKER_SCAN_CAP = 10_000;

/**
 * A small set of jobs named by a filter, each completed (live row or last transition) and checked
 * against the rest, then put in the tab's order: the id or idempotency key; the jobs of a bulk
 * operation (at most BULK_CAP); the poison suspects of the last POISON_LOOKBACK_MS (as the overview
 * lists them); a worker's jobs, bounded by one worker process's lifetime (and by WORKER_SCAN_CAP of
 * its newest unsuccessful attempts); or a params search's newest PARAMS_SET_CAP matches.
 */
function fromSet(f: F, order: Order, k: Keyset, limit: number): Fragment {
  let set: Fragment;
  let skip: { errorClass?: boolean; worker?: boolean; poison?: boolean };
  if (f.q) {
    const byKey = f.tenant ? sql`(c.tenant_id = ${f.tenant} AND c.idempotency_key = ${f.q})` : sql`c.idempotency_key = ${f.q}`;
    // An id, a link to one, or a piece of either end of one (lib/uuid.ts); and always an idempotency key.
    const id = idQueryOf(f.q);
    set =
      id?.kind === "piece"
        ? sql`${idPieceIds(id)} UNION SELECT c.id FROM job_catalog c WHERE ${byKey}`
        : sql`SELECT c.id FROM job_catalog c WHERE ${id?.kind === "id" ? sql`c.id = ${id.id}::uuid OR ${byKey}` : byKey}`;
    skip = {};
  } else if (f.operation) {
    set = sql`SELECT i.job_id FROM bulk_operation_items i WHERE i.operation_id = ${f.operation}::uuid`;
    skip = {};
  } else if (f.poison) {
    set = sql`
      SELECT a.job_id FROM job_attempts a WHERE a.outcome = 'lease_expired' AND a.finished_at >= ${poisonSince}
       GROUP BY a.job_id HAVING count(*) FILTER (WHERE a.error_class IS DISTINCT FROM ${WORKER_LOST_CLASS}) >= ${num(POISON_SUSPECT_CRASHES)}`;
    skip = { poison: true };
  } else if (f.worker) {
    const w = f.worker;
    set = sql`
      (SELECT a.job_id FROM job_attempts a WHERE a.worker_id = ${w} AND a.outcome <> 'succeeded' ORDER BY a.finished_at DESC LIMIT ${num(WORKER_SCAN_CAP)})
      UNION SELECT l.id FROM jobs_live l WHERE l.lease_owner = ${w} AND l.state IN ('claimed', 'running', 'cancelling')
      UNION SELECT l.id FROM jobs_live l WHERE l.lease_owner = ${w} AND l.state = 'paused'`;
    skip = { worker: true };
  } else {
    // A params search whose newest jobs rarely match (fromParams): jobscope_params_match's newest matches.
    const t = f.tenant ?? null;
    const from = f.createdFrom ?? null;
    const to = f.createdTo ?? null;
    // The All tab in created order with nothing else to check: the page is the function's first rows
    // beyond the cursor (going to older jobs), completed alone; completing every one of 10,000 matches
    // before the LIMIT cost 1.4 s at 10M jobs (docs/benchmarks.md, "Search by params"). Otherwise its
    // newest PARAMS_SET_CAP (older than the cursor, in created order), completed and checked.
    const alone = order === "created" && !k.asc && !(f.state || f.type || f.queue || f.errorClass || f.finishedFrom || f.finishedTo);
    const keyed = order === "created" && !k.asc && k.after && k.at !== null && k.id !== null;
    const bAt = keyed ? sql`${k.at}::text::timestamptz` : sql`NULL::timestamptz`;
    const bId = keyed ? sql`${k.id}::uuid` : sql`NULL::uuid`;
    const cap = alone ? limit : PARAMS_SET_CAP;
    set = sql`SELECT m.id FROM jobscope_params_match(${paramsJson(f) ?? "{}"}::text::jsonb, ${t}::text, ${from}::timestamptz, ${to}::timestamptz,
                                                     ${bAt}, ${bId}, ${num(cap)}) m`;
    skip = {};
  }
  // The operation's jobs, when another filter chose the set (an id with an operation).
  const inOperation =
    f.operation && f.q ? [sql`EXISTS (SELECT 1 FROM bulk_operation_items oi WHERE oi.operation_id = ${f.operation}::uuid AND oi.job_id = p.id)`] : [];
  const key = order === "finished" ? sql`f.fin_at` : sql`c.created_at`;
  const preds = [
    ...catalogPreds(f, "c"),
    ...attemptPreds(f, sql`p.id`, skip),
    ...inOperation,
    ...(f.state ? [sql`coalesce(l.state, f.fin_state) = ${stateLit(f.state)}`] : []),
    ...(order === "finished" ? [sql`l.id IS NULL`] : []),
    ...(f.finishedFrom ? [sql`f.fin_at >= ${f.finishedFrom}`] : []),
    ...(f.finishedTo ? [sql`f.fin_at < ${f.finishedTo}`] : []),
  ];
  return sql`
    SELECT p.id, ${key} AS at, true AS ok, 0 AS rn FROM (SELECT DISTINCT s.id FROM (${set}) s(id)) p
      JOIN job_catalog c ON c.id = p.id
      LEFT JOIN jobs_live l ON l.id = p.id
      ${finishedJoins()}
     WHERE (l.id IS NOT NULL OR f.fin_state IS NOT NULL) ${and(preds)} ${beyond(k, key, sql`p.id`)}
     ORDER BY ${key} ${dir(k, false)}, p.id ${dir(k, false)}
     LIMIT ${num(limit)}`;
}
