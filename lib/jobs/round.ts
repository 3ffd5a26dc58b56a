import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { prepared } from "../db/drizzle";
import { claimCtes, claimValues, type ClaimOptions } from "./claim";
import type { BatchItem } from "./complete";
import type { ClaimedJob } from "./types";
import { guardedWriteCtes, markCte, moveValues, notifyQueued, partsKey, partsOf, plan, type Moved } from "./write";

export type RoundResult = { reports: (Moved | null)[]; claimed: ClaimedJob[] };

type Row = { k: "m" | "c" } & Partial<ClaimedJob> & Partial<Moved> & { id: string };

/**
 * One worker round in ONE autocommit statement: the guarded write of the reports it carries
 * (finishes, failures… of jobs it ran) and the claim of its next jobs. The two touch different
 * rows (running jobs and queued ones), and one round trip does both: the worker sends a round
 * whenever one of its pipelines is free, so reports and claims wait for nothing but each other.
 */
export async function workerRound(client: Db, workerId: string, reports: readonly BatchItem[], claim: ClaimOptions | null): Promise<RoundResult> {
  const mine = reports.map((r) => (r.actor.kind === "worker" && r.actor.id === workerId ? r : null));
  const items = mine.filter((x): x is BatchItem => x !== null);
  const planned = plan(items);
  const wantClaim = claim !== null && claim.limit > 0 && claim.queues.length > 0;
  const out: RoundResult = { reports: reports.map(() => null), claimed: [] };
  if (planned.length === 0 && !wantClaim) return out;
  const writes = partsOf(planned);
  const key = `jobscope_round_${wantClaim ? "c" : ""}${planned.length > 0 ? `m${partsKey(writes)}` : ""}`;
  const statement = prepared<Row>(client, key, () => {
    const ctes = [markCte];
    const parts = [];
    if (planned.length > 0) {
      // With a claim in the same statement, the claim's `took` also counts the leases the reports give back.
      ctes.push(guardedWriteCtes(writes, { countsSlots: !wantClaim }));
      parts.push(sql`SELECT 'm' AS k, id, state, state_version, NULL::text AS tenant_id, NULL::text AS type, NULL::text AS queue, NULL::int AS priority,
                            attempt, NULL::int AS max_attempts, NULL::jsonb AS params, NULL::timestamptz AS created_at, ${notifyQueued} AS notified
                       FROM moved`);
    }
    if (wantClaim) {
      ctes.push(claimCtes({ withReports: planned.length > 0 }));
      parts.push(sql`SELECT 'c' AS k, id, state, state_version, tenant_id, type, queue, priority, attempt, max_attempts, params, created_at, 0 AS notified
                       FROM claimed`);
    }
    // The claim first: PostgreSQL runs a UNION ALL's branches in order, so the claim reads the claim
    // index right after the statement's snapshot is taken, before the reports' writes. Another
    // pipeline's claim that commits in between is the only one whose jobs this claim can still see
    // as queued (FOR UPDATE SKIP LOCKED then follows each to its new version, fails the recheck,
    // skips it and keeps its row lock to the end of the statement, and that job's report, a round
    // later, waits for it). Claiming after the reports widened that window to the reports' whole
    // write: two claims in flight convoyed (docs/decisions.md, "Claims in flight").
    return sql`WITH ${sql.join(ctes, sql`, `)} ${sql.join(parts.reverse(), sql` UNION ALL `)}`;
  });
  const rows = await statement({ ...(planned.length > 0 ? moveValues(planned) : {}), ...(wantClaim ? claimValues(claim) : {}) });
  const moved = new Map<string, Moved>();
  for (const r of rows) {
    if (r.k === "c") out.claimed.push(r as unknown as ClaimedJob);
    else moved.set(r.id, r as unknown as Moved);
  }
  // plan() sorted the moves by id; each answer goes back to its input slot.
  const answers: (Moved | null)[] = items.map(() => null);
  for (const x of planned) answers[x.i] = moved.get(x.move.jobId) ?? null;
  let m = 0;
  out.reports = mine.map((x) => (x ? answers[m++]! : null));
  return out;
}
