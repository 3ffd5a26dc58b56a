import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { prepared } from "../db/drizzle";
import { CAPPED, CLAIMED_COLUMNS, claimCtes, claimForm, claimValues, type ClaimForm, type ClaimOptions } from "./claim";
import type { BatchItem } from "./complete";
import type { ClaimedJob } from "./types";
import { guardedWriteCtes, markCte, moveValues, notifyQueued, partsKey, partsOf, plan, type Moved } from "./write";

/** A report the round applied: the job's state and version after it. */
export type Applied = Pick<Moved, "state" | "stateVersion">;

export type RoundResult = {
  reports: (Applied | null)[];
  claimed: ClaimedJob[];
  /** A queue the claim read has a cap (a lean claim gave it nothing: ClaimOptions `lean`). */
  capped: boolean;
};

/** A claim form's part of the round statement's name. */
const FORM_KEY: Record<ClaimForm, string> = { full: "", lean: "l", oneQueue: "l1" };

/** A claimed job as the round's answer carries it: the claim's columns in `CLAIMED_COLUMNS` order. */
type ClaimedTuple = [string, string, string, string, number, ClaimedJob["state"], number, number, number, unknown, string];

/**
 * One worker round in ONE autocommit statement: the guarded write of the reports it carries
 * (finishes, failures… of jobs it ran) and the claim of its next jobs. The two touch different
 * rows (running jobs and queued ones), and one round trip does both: the worker sends a round
 * whenever one of its pipelines is free, so reports and claims wait for nothing but each other.
 *
 * Its answer is one row: the claimed jobs as one JSON array, the ids of the reports that did not
 * apply (none, as a rule) and the NOTIFY's count. A report that applied moved its job to its
 * shape's state, one version on from the one it expected: the guard says so, and nothing of it
 * needs to come back. (One row per job, a dozen columns each, was the largest share of the
 * worker's CPU: docs/decisions.md, "The worker's node CPU".)
 */
export async function workerRound(
  client: Db,
  workerId: string,
  reports: readonly BatchItem[],
  claim: ClaimOptions | null,
  /** The worker sends one job per statement: a lone report goes in as scalars (WriteParts `one`). */
  oneAtATime = false,
): Promise<RoundResult> {
  const mine = reports.map((r) => (r.actor.kind === "worker" && r.actor.id === workerId ? r : null));
  const items = mine.filter((x): x is BatchItem => x !== null);
  const planned = plan(items);
  const wantClaim = claim !== null && claim.limit > 0 && claim.queues.length > 0;
  const out: RoundResult = { reports: reports.map(() => null), claimed: [], capped: false };
  if (planned.length === 0 && !wantClaim) return out;
  const writes = partsOf(planned, oneAtATime);
  // The worker starts every job it claims: its claim then ranks none of them (claimCtes, `startsAll`).
  const startsAll = wantClaim && (claim.startNow ?? 0) >= claim.limit;
  const form = wantClaim ? claimForm(claim, startsAll) : "full";
  const key = `jobscope_round_${wantClaim ? `${FORM_KEY[form]}${startsAll ? "C" : "c"}` : ""}${planned.length > 0 ? `m${partsKey(writes)}` : ""}`;
  const statement = prepared<{ claimed: ClaimedTuple[] | null; lost: string[] | null; notified: number; capped: boolean | null }>(client, key, () => {
    const ctes = [markCte];
    if (planned.length > 0) {
      // With a claim in the same statement, the claim's `took` also counts the leases the reports give
      // back. A lean claim counts none: no queue of the worker's had a cap as of its last round, and
      // a report of a job whose queue was capped since is counted by the supervisor's re-count.
      ctes.push(guardedWriteCtes(writes, { countsSlots: !wantClaim }));
    }
    if (wantClaim) ctes.push(claimCtes({ withReports: planned.length > 0, startsAll, form }));
    // The claim first: PostgreSQL evaluates the select list in order, so the claim reads the claim
    // index right after the statement's snapshot is taken, before the reports' writes. Another
    // pipeline's claim that commits in between is the only one whose jobs this claim can still see
    // as queued (FOR UPDATE SKIP LOCKED then follows each to its new version, fails the recheck,
    // skips it and keeps its row lock to the end of the statement, and that job's report, a round
    // later, waits for it). Claiming after the reports widened that window to the reports' whole
    // write: two claims in flight convoyed (docs/decisions.md, "Claims in flight").
    const claimed = wantClaim ? sql`(SELECT json_agg(json_build_array(${CLAIMED_COLUMNS})) FROM claimed)` : sql`NULL::json`;
    const lost = planned.length > 0 ? sql`(SELECT array_agg(id) FROM i WHERE NOT EXISTS (SELECT FROM moved m WHERE m.id = i.id))` : sql`NULL::uuid[]`;
    const notified = planned.length > 0 ? notifyQueued(writes) : sql`0`;
    const capped = wantClaim ? CAPPED(form) : sql`NULL::boolean`;
    return sql`WITH ${sql.join(ctes, sql`, `)} SELECT ${claimed} AS claimed, ${lost} AS lost, ${notified} AS notified, ${capped} AS capped`;
  });
  // Object.assign, not a spread into a literal: V8 copied the two objects key by key, about 9 µs a
  // call, a tenth of a one-job round's node CPU.
  const [row] = await statement(Object.assign(planned.length > 0 ? moveValues(planned, writes) : {}, wantClaim ? claimValues(claim) : {}));
  for (const [id, tenantId, type, queue, priority, state, attempt, maxAttempts, stateVersion, params, createdAt] of row?.claimed ?? [])
    out.claimed.push({ id, tenantId, type, queue, priority, state, attempt, maxAttempts, stateVersion, params, createdAt: new Date(createdAt) });
  out.capped = row?.capped === true;
  const lost = new Set(row?.lost ?? []);
  // plan() sorted the moves by id; each answer goes back to its input slot.
  const answers: (Applied | null)[] = items.map(() => null);
  for (const x of planned) answers[x.i] = lost.has(x.move.jobId) ? null : { state: x.shape.to, stateVersion: x.move.expected.version + 1 };
  let m = 0;
  out.reports = mine.map((x) => (x ? answers[m++]! : null));
  return out;
}
