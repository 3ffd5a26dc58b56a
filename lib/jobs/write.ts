import { sql, type SQL } from "drizzle-orm";
import { PgTransaction } from "drizzle-orm/pg-core";
import type { Db } from "../db/client";
import { arrayLiteral, prepared, execute } from "../db/drizzle";
import { MOVES } from "../fsm/machine";
import type { JobEvent, JobState } from "../fsm/table";
import { shapeOf, type Shape } from "./shape";
import type { Actor, JobRow } from "./types";

/**
 * THE guarded write: the one statement that applies transitions (all but the claim, which picks
 * its own rows: lib/jobs/claim.ts shares `markCte` and the attempt columns with it). Every move
 * names the state and version it expects; a worker's also its attempt and lease, a supervisor's a
 * still-stale heartbeat. For a batch of moves, in one autocommit statement:
 *
 *   live → live        UPDATE jobs_live … WHERE id AND state AND state_version [AND fences]
 *   live → finished    DELETE FROM jobs_live … WHERE (the same guard); the finished state is the
 *                      transition's own record (the attempt's closing event, or its job_log row)
 *   finished → live    INSERT INTO jobs_live … WHERE its last transition has the expected state
 *                      and version (a replay; the primary key lets one of two through)
 *   + the attempt the move closes (INSERT INTO job_attempts, with the worker's closing event on it)
 *   + the event, when no worker applied it (INSERT INTO job_log)
 *   + NOTIFY when the job becomes claimable.
 *
 * Each move's effect comes from lib/fsm/table.ts through its Shape (lib/jobs/shape.ts): the SQL
 * below is the same for every transition, the arrays say which. A move that loses its guard is
 * simply absent from the answer; the caller classifies it (lib/jobs/transition.ts).
 *
 * Built with drizzle's `sql` template and run as a prepared statement on the one pool
 * (lib/db/drizzle.ts): arrays in, a few columns out, so the text never changes with the batch;
 * one move alone goes in as scalars (`WriteParts.one`).
 */
export type Move = {
  jobId: string;
  event: JobEvent;
  actor: Actor;
  expected: { state: JobState; version: number };
  /** A worker's fencing token (the lease owner is `actor.id`). */
  attempt?: number;
  /** Supervisor: only while the heartbeat is older than this. */
  staleBefore?: Date;
  /** How the attempt ended badly; `stack` (the handler's) is kept on the attempt only, never in the log's payload. */
  error?: { class: string; message: string; stack?: string };
  result?: unknown;
  retryAt?: Date;
  payload?: Record<string, unknown>;
  /** Back-dates the move (the demo seeder only). */
  at?: Date;
};

/** A moved job's state columns, after the move (`full`: the whole row, as the `jobs` view has it). */
export type Moved = {
  id: string;
  state: JobState;
  attempt: number;
  maxAttempts: number;
  stateVersion: number;
  leaseOwner: string | null;
  heartbeatAt: Date | null;
  notBefore: Date | null;
  updatedAt: Date;
  finishedAt: Date | null;
};

const MAX_ERROR_CLASS = 200;
export const MAX_ERROR_MESSAGE = 8192;
export const MAX_ERROR_STACK = 16_384;

/** Sets the direct-write mark before any row is written (the guard triggers check it per statement). */
export const markCte = sql`mark AS MATERIALIZED (SELECT set_config('jobscope.write_path', 'on', true) AS on)`;

const ph = (name: string) => sql.placeholder(name);

export type Planned = { i: number; move: Move; shape: Shape };

/** The moves the table allows from their expected state, with their shapes; the rest are `null` in the answer. */
export function plan(moves: readonly Move[]): Planned[] {
  const out: Planned[] = [];
  moves.forEach((move, i) => {
    const shape = shapeOf(move.expected.state, move.event, move.actor.kind);
    // The claim picks its own rows (lib/jobs/claim.ts); anything the table refuses is classified by the caller.
    if (!shape || shape.opensRun) return;
    if (move.actor.kind === "worker" && move.attempt === undefined) return;
    out.push({ i, move, shape });
  });
  // Rows are locked in id order, so two batches (or a batch and a heartbeat) cannot deadlock.
  return out.sort((a, b) => (a.move.jobId < b.move.jobId ? -1 : a.move.jobId > b.move.jobId ? 1 : 0));
}

const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v));

/**
 * Every move the table allows (but the claim), as the guarded write's lookup table: a move names
 * its shape by number, and the statement joins the shape's columns (lib/jobs/shape.ts) from this
 * list, which is written into the statement's text from lib/fsm/table.ts.
 */
const SHAPES: Shape[] = MOVES.map((m) => shapeOf(m.from, m.event, m.actor)!).filter((x) => !x.opensRun);
// shapeOf() resolves each shape once: a shape is its own key.
const shapeKey = new Map(SHAPES.map((x, k) => [x, k]));
const keyOf = (s: Shape) => shapeKey.get(s)!;
const lit = (v: string | number | boolean | null, type?: string) =>
  v === null ? `NULL${type ? `::${type}` : ""}` : typeof v === "string" ? `'${v}'${type ? `::${type}` : ""}` : String(v);
/** A shape's columns of the guarded write, as SQL literals. */
const SHAPE_COLUMNS = (x: Shape): [string, string][] => [
  ["exp_state", lit(x.from, "job_state")],
  ["event", lit(x.event, "job_event")],
  ["actor_kind", lit(x.actor, "actor_kind")],
  ["to_state", lit(x.to, "job_state")],
  ["from_done", String(x.fromDone)],
  ["to_done", String(x.toDone)],
  ["max_rule", String(x.maxRule)],
  ["needs_left", String(x.needsAttemptsLeft)],
  ["leased", String(x.leasedAfter)],
  ["starts", String(x.startsRun)],
  ["outcome", lit(x.closes, "run_outcome")],
  ["resets_hb", String(x.resetsHeartbeat)],
  ["nb_rule", String(x.notBeforeRule)],
  ["on_attempt", String(x.onAttempt)],
  ["slot_delta", String(x.slotDelta)],
];
const SHAPE_NAMES = SHAPE_COLUMNS(SHAPES[0]!).map(([name]) => name);
const SHAPES_SQL = sql.raw(
  `shapes(k, ${SHAPE_NAMES.join(", ")}) AS (VALUES ${SHAPES.map(
    (x, k) =>
      `(${k}, ${SHAPE_COLUMNS(x)
        .map(([, v]) => v)
        .join(", ")})`,
  ).join(", ")})`,
);

/**
 * The values of the guarded write's placeholders for `planned`: one array per column that varies
 * by move (the rest come from its shape), each as an array literal (`arrayLiteral`): times go in as
 * ISO text and JSON as text, each cast in SQL. A single move's go in as scalars (`WriteParts.one`).
 */
export function moveValues(planned: readonly Planned[], parts: WriteParts = partsOf(planned)): Record<string, string | number | null> {
  // A column no move of the batch fills is not sent: the statement reads NULL in its place. With one
  // shape for the whole batch, the statement has its columns as constants (`sentColumns`).
  const out: Record<string, string | number | null> = {};
  for (const k of sentColumns(parts)) {
    // One move: its values as they are (the statement's write looks its job up by `ids`).
    if (parts.one) out[k] = valueOf(planned[0]!, k);
    else out[k] = arrayLiteral(planned.map((x) => valueOf(x, k)));
  }
  if (parts.one) return out;
  // Each of the three writes looks up only its own rows by primary key.
  const ids = (f: (x: Planned) => boolean) => arrayLiteral(planned.filter(f).map((x) => x.move.jobId));
  if (parts.upd) out.updIds = ids((x) => !x.shape.fromDone && !x.shape.toDone);
  if (parts.del) out.delIds = ids((x) => !x.shape.fromDone && x.shape.toDone);
  if (parts.rep) out.repIds = ids((x) => x.shape.fromDone);
  return out;
}

/** A move's value of one column of the guarded write (`fills` says which optional ones it fills). */
function valueOf({ move: m, shape: s }: Planned, k: MoveColumn): string | number | null {
  const closes = s.closes !== null;
  switch (k) {
    case "ids":
      return m.jobId;
    case "shape":
      return keyOf(s);
    case "expVersion":
      return m.expected.version;
    case "actorId":
      return m.actor.id;
    case "fence":
      return s.onAttempt ? m.attempt! : null;
    case "stale":
      return m.staleBefore?.toISOString() ?? null;
    case "retryAt":
      // Without one, the move's own time (the database's now): claimable at once.
      return s.notBeforeRule === 2 ? (m.retryAt?.toISOString() ?? null) : null;
    case "errorClass":
      return closes && m.error ? m.error.class.slice(0, MAX_ERROR_CLASS) : null;
    case "errorMessage":
      return closes && m.error ? m.error.message.slice(0, MAX_ERROR_MESSAGE) : null;
    case "errorStack":
      return closes && m.error?.stack ? m.error.stack.slice(0, MAX_ERROR_STACK) : null;
    case "result":
      return closes ? json(m.result) : null;
    case "payload":
      return s.onAttempt ? null : logPayload(m);
    case "at":
      return m.at?.toISOString() ?? null;
  }
}

const MOVE_COLUMNS = [
  "ids",
  "shape",
  "expVersion",
  "actorId",
  "fence",
  "stale",
  "retryAt",
  "errorClass",
  "errorMessage",
  "errorStack",
  "result",
  "payload",
  "at",
] as const;

/**
 * The columns most moves leave empty (a worker's finish fills none of them), with their SQL types. A
 * batch sends only those one of its moves fills; the statement text says which (its key, `partsKey`).
 */
const OPTIONAL_COLUMNS = ["fence", "stale", "retryAt", "errorClass", "errorMessage", "errorStack", "result", "payload", "at"] as const;
type OptionalColumn = (typeof OPTIONAL_COLUMNS)[number];
type MoveColumn = (typeof MOVE_COLUMNS)[number];
const isOptional = (k: MoveColumn): k is OptionalColumn => (OPTIONAL_COLUMNS as readonly string[]).includes(k);
/** The columns a batch sends: the optional ones a move of it fills, and the shape unless it is one for all. */
const sentColumns = (parts: WriteParts) =>
  MOVE_COLUMNS.filter((k) => (k === "shape" ? parts.shape === null : !isOptional(k) || parts.cols.includes(k)));
const COLUMN_SQL: Record<(typeof MOVE_COLUMNS)[number], { name: string; type: string }> = {
  ids: { name: "id", type: "uuid" },
  shape: { name: "shape", type: "int" },
  expVersion: { name: "exp_version", type: "int" },
  actorId: { name: "actor_id", type: "text" },
  fence: { name: "fence", type: "int" },
  stale: { name: "stale", type: "timestamptz" },
  retryAt: { name: "retry_at", type: "timestamptz" },
  errorClass: { name: "error_class", type: "text" },
  errorMessage: { name: "error_message", type: "text" },
  errorStack: { name: "error_stack", type: "text" },
  result: { name: "result", type: "text" },
  payload: { name: "payload", type: "text" },
  at: { name: "at0", type: "timestamptz" },
};

/**
 * Which of the guarded write's parts a batch needs: the live row updated (`upd`), deleted as the job
 * finishes (`del`) or put back by a replay (`rep`); an attempt closed (`att`); a transition logged
 * (`log`). A statement leaves out what its batch does not need: PostgreSQL initialises every node
 * of a plan on each execution, and a one-job finish paid for the replay's reads of job_log's
 * partitions it never ran (docs/decisions.md, "The guarded write is built for its batch").
 */
export type WriteParts = {
  upd: boolean;
  del: boolean;
  rep: boolean;
  att: boolean;
  log: boolean;
  cols: OptionalColumn[];
  shape: number | null;
  /** Some move makes its job claimable (a NOTIFY goes out: `notifyQueued`). */
  queues: boolean;
  /**
   * One move (an operator's action, a report of a worker that runs one job per statement): its
   * values go in as scalars and its write finds the job by `id = $1`, not through arrays unnested
   * and looked up by `id = ANY(...)` (docs/decisions.md, "One job per statement"). A batched
   * worker's round that happens to carry one report keeps its arrays (`partsOf(planned, false)`):
   * another statement would be one more plan to make on each of its connections.
   */
  one: boolean;
};

export function partsOf(planned: readonly Planned[], scalar = planned.length === 1): WriteParts {
  const some = (f: (s: Shape) => boolean) => planned.some((x) => f(x.shape));
  return {
    upd: some((s) => !s.fromDone && !s.toDone),
    del: some((s) => !s.fromDone && s.toDone),
    rep: some((s) => s.fromDone),
    att: some((s) => s.closes !== null),
    log: some((s) => !s.onAttempt),
    cols: OPTIONAL_COLUMNS.filter((k) => planned.some((x) => fills(x, k))),
    queues: some((s) => s.to === "queued"),
    // Every move of the batch the same transition (a round of finishes, one job's report): its shape
    // is written into the statement instead of joined from the list of every shape.
    shape: planned.length > 0 && planned.every((x) => x.shape === planned[0]!.shape) ? keyOf(planned[0]!.shape) : null,
    one: scalar && planned.length === 1,
  };
}

/** Whether a move puts a value in an optional column (`moveValues` reads the same rules). */
function fills({ move: m, shape: s }: Planned, k: OptionalColumn): boolean {
  const closes = s.closes !== null;
  switch (k) {
    case "fence":
      return s.onAttempt;
    case "stale":
      return m.staleBefore !== undefined;
    case "retryAt":
      return s.notBeforeRule === 2;
    case "errorClass":
    case "errorMessage":
      return closes && !!m.error;
    case "errorStack":
      return closes && !!m.error?.stack;
    case "result":
      return closes && m.result !== undefined;
    case "payload":
      return !s.onAttempt;
    case "at":
      return m.at !== undefined;
  }
}

/** The parts as a short key for the prepared statement's name ("da": delete and close attempts). */
export const partsKey = (p: WriteParts): string =>
  (["upd", "del", "rep", "att", "log", "queues"] as const)
    .filter((k) => p[k])
    .map((k) => k[0])
    .join("") +
  (p.cols.length ? `_${OPTIONAL_COLUMNS.reduce((bits, k, i) => bits | (p.cols.includes(k) ? 1 << i : 0), 0).toString(36)}` : "") +
  (p.shape !== null ? `_s${p.shape}` : "") +
  (p.one ? "_1" : "");

/** The shape's columns `moved` carries when a batch has several shapes (att and log read them). */
const CARRIED_SHAPE_COLUMNS = ["event", "exp_state", "actor_kind", "outcome", "on_attempt", "nb_rule"] as const;
/** The optional columns att and log read from `moved` (when the batch sends them). */
const CARRIED_OPTIONAL = ["retryAt", "errorClass", "errorMessage", "errorStack", "result", "payload"] as const;

/**
 * `moved`'s columns of the job after its move, as the update, the delete and the replay's insert
 * return them (TO_STATE: the shape's state after the move). `full`: read only by applyMoves's answer.
 */
const MOVED_ROW: { name: string; upd: string; del: string; rep: string; full?: true }[] = [
  { name: "id", upd: "l.id", del: "l.id", rep: "id" },
  { name: "tenant_id", upd: "l.tenant_id", del: "l.tenant_id", rep: "tenant_id" },
  { name: "queue", upd: "l.queue", del: "l.queue", rep: "queue" },
  { name: "state", upd: "l.state", del: "TO_STATE", rep: "state" },
  { name: "attempt", upd: "l.attempt", del: "l.attempt", rep: "attempt" },
  { name: "max_attempts", upd: "l.max_attempts", del: "l.max_attempts", rep: "max_attempts" },
  { name: "state_version", upd: "l.state_version", del: "l.state_version + 1", rep: "state_version" },
  { name: "lease_owner", upd: "l.lease_owner", del: "NULL::text", rep: "NULL::text", full: true },
  { name: "heartbeat_at", upd: "l.heartbeat_at", del: "NULL::timestamptz", rep: "NULL::timestamptz", full: true },
  { name: "not_before", upd: "l.not_before", del: "NULL::timestamptz", rep: "not_before", full: true },
  { name: "updated_at", upd: "l.updated_at", del: "i.at", rep: "updated_at", full: true },
  { name: "finished_at", upd: "NULL::timestamptz", del: "i.at", rep: "NULL::timestamptz", full: true },
  { name: "run_worker", upd: "l.run_worker", del: "l.run_worker", rep: "NULL::text" },
  { name: "run_claimed_at", upd: "l.run_claimed_at", del: "l.run_claimed_at", rep: "NULL::timestamptz" },
  { name: "run_started_at", upd: "l.run_started_at", del: "l.run_started_at", rep: "NULL::timestamptz" },
  { name: "run_version", upd: "l.run_version", del: "l.run_version", rep: "NULL::int" },
];

/**
 * The CTEs of the guarded write (named shapes, i, and of upd, del, rep, att, log those in `parts`, and
 * moved), to be placed after `markCte` in a WITH list; their values are `moveValues(planned)`.
 * `moved` holds every applied move.
 */
export function guardedWriteCtes(parts: WriteParts, opts: { countsSlots?: boolean; answersRows?: boolean } = {}): SQL {
  const sent = sentColumns(parts);
  const one = parts.shape === null ? null : SHAPES[parts.shape]!;
  // A shape's column, as `from` reads it: with one shape for the whole batch, its value written as a
  // constant, which PostgreSQL folds when it plans (a worker's finish loses the guard's staleness and
  // attempts-left branches, its attempt row the CASEs); with several, joined into i from the shapes'
  // list. A one-job round spent 8–26 µs less PostgreSQL CPU (docs/decisions.md, "One job per statement").
  const shapeValues = one ? new Map(SHAPE_COLUMNS(one)) : null;
  const shapeText = (name: string, from = "i.") => (shapeValues ? shapeValues.get(name)! : `${from}${name}`);
  const sv = (name: string, from = "i.") => sql.raw(shapeText(name, from));
  // An optional column, as `from` reads it: one the batch does not send is a typed NULL (folded too).
  const ov = (k: Exclude<OptionalColumn, "at">, from = "i.") => {
    const { name, type } = COLUMN_SQL[k];
    return sql.raw(parts.cols.includes(k) ? `${from}${name}` : `NULL::${type}`);
  };
  // What a write's RETURNING carries of its move to `moved`, for att and log: the shape's columns
  // when the batch has several (with one, they read its constants) and the optional columns the
  // batch sends (they read a typed NULL for the rest); slot_delta always (freed and the claim's
  // `took` read it). A column of RETURNING costs each execution its share of the projection's
  // set-up: a one-job round spent 13 µs less PostgreSQL CPU without the unread ones (2026-12-05).
  const carried = sql.raw(
    [
      ...(shapeValues ? [] : CARRIED_SHAPE_COLUMNS.map((name) => `${shapeText(name)} AS ${name}`)),
      "i.actor_id",
      ...CARRIED_OPTIONAL.filter((k) => parts.cols.includes(k)).map((k) => `i.${COLUMN_SQL[k].name}`),
      "i.at",
      `${shapeText("slot_delta")} AS slot_delta`,
    ].join(", "),
  );
  // The job's row after the move, as each write returns it; only a caller that answers with the
  // whole row (applyMoves) has the columns the `jobs` view adds.
  const row = (w: "upd" | "del" | "rep") =>
    sql.raw(
      MOVED_ROW.filter((c) => opts.answersRows || !c.full)
        .map((c) => {
          const e = c[w] === "TO_STATE" ? shapeText("to_state") : c[w];
          return e === c.name || e === `l.${c.name}` ? e : `${e} AS ${c.name}`;
        })
        .join(", "),
    );
  const optional = OPTIONAL_COLUMNS.filter((k) => k !== "at" && parts.cols.includes(k)).map((k) => `x.${COLUMN_SQL[k].name}`);
  // The rows a write may touch, by primary key: the one move's job, or the batch's of that write.
  const byId = (column: string, ids: string) =>
    parts.one ? sql`${sql.raw(column)} = ${ph("ids")}::uuid` : sql`${sql.raw(column)} = ANY(${ph(ids)}::uuid[])`;
  const writes = [
    parts.upd && sql`SELECT * FROM upd`,
    parts.del && sql`SELECT * FROM del`,
    parts.rep && sql`SELECT r.*, ${carried} FROM rep r JOIN i ON i.id = r.id`,
  ].filter((x): x is SQL => !!x);
  // An update or a delete alone is `moved` itself: its RETURNING has moved's columns, and a CTE over
  // it copied every row once more (a one-job round, a round of finishes).
  const direct = writes.length === 1 && !parts.rep;
  const named = (name: string) => sql.raw(direct ? "moved" : name);
  // The guard every update and delete shares: the state and version expected, and a worker's fence, a
  // supervisor's staleness. The expected state is read from i even for one shape: as a constant it
  // implied a partial index's predicate (the lease index's), and the generic plan read every leased
  // row through that index instead of the one by its primary key.
  const guard = (l: string) => sql`${sql.raw(l)}.state = i.exp_state AND ${sql.raw(l)}.state_version = i.exp_version
       AND (${ov("fence")} IS NULL OR (${sql.raw(l)}.attempt = ${ov("fence")} AND ${sql.raw(l)}.lease_owner = i.actor_id))
       AND (${ov("stale")} IS NULL OR ${sql.raw(l)}.heartbeat_at < ${ov("stale")})`;
  return sql`${one ? sql`` : sql`${SHAPES_SQL},`}
  i AS MATERIALIZED (
    SELECT ${sql.raw(["x.id", "x.exp_version", "x.actor_id", ...optional].join(", "))}, coalesce(${sql.raw(parts.cols.includes("at") ? "x.at0" : "NULL::timestamptz")}, now()) AS at${
      one ? sql`, ${sv("exp_state")} AS exp_state` : sql`, ${sql.raw(SHAPE_NAMES.map((name) => `s.${name}`).join(", "))}`
    }
      FROM mark, ${parts.one ? sql`(SELECT ` : sql`unnest(`}${sql.join(
        sent.map((k) => sql`${ph(k)}::${sql.raw(COLUMN_SQL[k].type)}${sql.raw(parts.one ? "" : "[]")}`),
        sql`, `,
      )}) AS x(${sql.raw(sent.map((k) => COLUMN_SQL[k].name).join(", "))})
      ${one ? sql`` : sql`JOIN shapes s ON s.k = x.shape`}
     WHERE mark.on = 'on'),
${sql.join(
  [
    parts.upd &&
      sql`
  ${named("upd")} AS (
    UPDATE jobs_live l SET
      state = ${sv("to_state")}, state_version = l.state_version + 1,
      max_attempts = CASE ${sv("max_rule")} WHEN 2 THEN l.max_attempts + 1 ELSE l.max_attempts END,
      lease_owner = CASE WHEN ${sv("leased")} THEN l.lease_owner END,
      heartbeat_at = CASE WHEN ${sv("resets_hb")} THEN i.at ELSE l.heartbeat_at END,
      not_before = CASE ${sv("nb_rule")} WHEN 1 THEN i.at WHEN 2 THEN coalesce(${ov("retryAt")}, i.at) ELSE l.not_before END,
      run_started_at = CASE WHEN ${sv("starts")} THEN i.at ELSE l.run_started_at END,
      updated_at = i.at
      FROM i
     WHERE ${byId("l.id", "updIds")} AND l.id = i.id AND NOT ${sv("from_done")} AND NOT ${sv("to_done")} AND ${guard("l")}
       AND (NOT ${sv("needs_left")} OR l.attempt < l.max_attempts)
    RETURNING ${row("upd")}, ${carried})`,
    parts.del &&
      sql`
  ${named("del")} AS (
    DELETE FROM jobs_live l USING i
     WHERE ${byId("l.id", "delIds")} AND l.id = i.id AND NOT ${sv("from_done")} AND ${sv("to_done")} AND ${guard("l")}
       AND (NOT ${sv("needs_left")} OR l.attempt < l.max_attempts)
    RETURNING ${row("del")}, ${carried})`,
    parts.rep &&
      sql`
  -- A replay: the job comes back from its last transition (a finished one, as the move expected);
  -- two replays at once both insert, and the primary key lets one through.
  rep AS (
    INSERT INTO jobs_live (id, tenant_id, type, queue, priority, state, attempt, max_attempts, state_version, not_before, params, created_at, updated_at)
    SELECT c.id, c.tenant_id, c.type, c.queue, c.priority, ${sv("to_state")}, f.attempt,
           CASE ${sv("max_rule")} WHEN 1 THEN greatest(f.max_attempts, f.attempt + 1) WHEN 2 THEN f.max_attempts + 1 ELSE f.max_attempts END,
           -- A replay with edited params runs with them (the payload job_log keeps); job_catalog stays as submitted.
           f.state_version + 1, i.at, coalesce(${ov("payload")}::jsonb -> 'params', c.params), c.created_at, i.at
      FROM i JOIN job_catalog c ON c.id = i.id CROSS JOIN LATERAL job_last_transition(c.id, c.created_at) f
     WHERE ${byId("c.id", "repIds")} AND ${sv("from_done")}
       AND f.state = ${sv("exp_state")} AND f.state_version = i.exp_version
       AND (NOT ${sv("needs_left")} OR f.attempt < f.max_attempts)
    ON CONFLICT (id) DO NOTHING
    RETURNING ${row("rep")})`,
    !direct &&
      sql`
  -- Each applied move with the columns of its input (carried by RETURNING: no join back to i).
  moved AS (
    ${sql.join(
      writes,
      sql`
    UNION ALL
    `,
    )})`,
    parts.att &&
      sql`
  att AS (
    INSERT INTO job_attempts (job_id, attempt, tenant_id, worker_id, claimed_at, claim_version, started_at, finished_at, outcome, max_attempts,
                              end_event, end_from, end_to, end_version, retry_at, error_class, error_message, error_stack, result)
    SELECT id, attempt, tenant_id, run_worker, run_claimed_at, run_version, run_started_at, at, ${sv("outcome", "")}, max_attempts,
           CASE WHEN ${sv("on_attempt", "")} THEN ${sv("event", "")} END, CASE WHEN ${sv("on_attempt", "")} THEN ${sv("exp_state", "")} END,
           CASE WHEN ${sv("on_attempt", "")} THEN state END, CASE WHEN ${sv("on_attempt", "")} THEN state_version END,
           CASE WHEN ${sv("on_attempt", "")} AND ${sv("nb_rule", "")} = 2 THEN coalesce(${ov("retryAt", "")}, at) END,
           ${ov("errorClass", "")}, ${ov("errorMessage", "")}, ${ov("errorStack", "")}, ${ov("result", "")}::jsonb
      FROM moved WHERE ${sv("outcome", "")} IS NOT NULL)`,
    parts.log &&
      sql`
  log AS (
    INSERT INTO job_log (job_id, tenant_id, event, from_state, to_state, actor_kind, actor_id, attempt, state_version, at, payload, max_attempts)
    SELECT id, tenant_id, ${sv("event", "")}, ${sv("exp_state", "")}, state, ${sv("actor_kind", "")}, actor_id, attempt, state_version, at, ${ov("payload", "")}::jsonb, max_attempts
      FROM moved WHERE NOT ${sv("on_attempt", "")})`,
  ].filter((x): x is SQL => !!x),
  sql`,`,
)}${opts.countsSlots === false ? sql`` : freedCte}`;
}

/**
 * A capped queue counts the slots the moves gave back or took (its claim counted its own out): a
 * finish or a pause gives one back, a resume takes one. A statement that also claims leaves this to
 * the claim's `took` (`countsSlots: false`): two UPDATEs of one queue row in one statement keep
 * only one of the two changes.
 */
const freedCte = sql`,
  freed AS (
    UPDATE queues s SET leased = greatest(s.leased + n.d, 0)
      FROM (SELECT queue, sum(slot_delta)::int AS d FROM moved WHERE slot_delta <> 0 GROUP BY queue) n
     WHERE s.name = n.queue AND s.concurrency_limit IS NOT NULL AND n.d <> 0)`;

/** The event's payload in job_log: the caller's, plus the error that closed the attempt. */
function logPayload(m: Move): string | null {
  const payload = { ...m.payload, ...(m.error && { error: { class: m.error.class, message: m.error.message } }) };
  return Object.keys(payload).length ? JSON.stringify(payload) : null;
}

/**
 * The NOTIFY for jobs that became claimable (one per queue and transaction: PostgreSQL folds
 * duplicates); none when no move of the batch makes its job claimable (a round of finishes).
 */
export const notifyQueued = (parts: WriteParts) =>
  parts.queues ? sql`(SELECT count(pg_notify('jobscope_queued', queue)) FROM moved WHERE state = 'queued')` : sql`0`;

/**
 * Apply `moves` in one statement. Returns, per move in input order, the job's row after it (as the
 * `jobs` view has it), or null for a move that did not apply (the table refuses it, or it lost its guard).
 */
export async function applyMoves(client: Db, moves: readonly Move[]): Promise<(JobRow | null)[]> {
  const out: (JobRow | null)[] = moves.map(() => null);
  const planned = plan(moves);
  if (planned.length === 0) return out;
  // Inside a console request's transaction: reuse the statement's one plan, as workers do (their
  // pools ask for it when they connect): a custom plan of this statement costs milliseconds.
  if (client instanceof PgTransaction) await execute(client as Db, sql`SET LOCAL plan_cache_mode = force_generic_plan`);
  const parts = partsOf(planned);
  const statement = prepared<JobRow & { notified: number }>(
    client,
    `jobscope_moves_${partsKey(parts)}`,
    () => sql`WITH ${markCte}, ${guardedWriteCtes(parts, { answersRows: true })}
      SELECT m.id, c.tenant_id, c.type, c.queue, c.priority, m.state, m.attempt, m.max_attempts, m.state_version, m.lease_owner,
             m.heartbeat_at, coalesce(m.not_before, c.not_before) AS not_before, c.params, c.idempotency_key, c.created_at, m.updated_at,
             m.finished_at, ${notifyQueued(parts)} AS notified
        FROM moved m JOIN job_catalog c ON c.id = m.id`,
  );
  const rows = await statement(moveValues(planned, parts));
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const { i, move } of planned) {
    const r = byId.get(move.jobId);
    if (r) {
      const { notified: _n, ...job } = r;
      void _n;
      out[i] = job;
    }
  }
  return out;
}
