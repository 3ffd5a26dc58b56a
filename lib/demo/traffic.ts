import type { Db } from "../db/client";
import type { JobEvent, JobState } from "../fsm/table";
import { enqueue } from "../jobs/enqueue";
import { isJobType } from "../jobs/job-types";
import { transition } from "../jobs/transition";
import type { Actor } from "../jobs/types";
import { DEMO_TENANTS, randomJob } from "./seed";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const OPERATOR: Actor = { kind: "operator", id: "demo-operator" };

/**
 * Keeps the demo alive: submits about a job a second across the demo tenants
 * (now and then one that kills its worker), and acts as a tenant and an
 * operator from time to time — cancelling a running export, pausing a job and
 * resuming it later — so every state keeps being visited.
 */
export function startTraffic(db: Db, opts: { perSecond?: number; log?: (s: string) => void } = {}) {
  const log = (e: unknown) => opts.log?.(`traffic: ${e instanceof Error ? e.message : String(e)}`);
  let n = 0;
  const submit = setInterval(
    () => {
      n++;
      const tenantId = DEMO_TENANTS[n % DEMO_TENANTS.length]!.id;
      const input = n % 120 === 0 && isJobType("poison.crash") ? { tenantId, type: "poison.crash", params: {} } : randomJob(Math.random, tenantId);
      enqueue(db, input, { kind: "api", id: `api-key-${tenantId}` }).catch(log);
    },
    1000 / (opts.perSecond ?? 1),
  );

  const act = async (where: { state: JobState; type?: string; tenantId?: string }, event: JobEvent, actor: Actor) => {
    const [job] = await execute<{ id: string; state: JobState; stateVersion: number }>(
      db,
      sql`
      SELECT id, state, state_version FROM jobs_live
       WHERE state = ${where.state} ${where.type ? sql`AND type = ${where.type}` : sql``}
         ${where.tenantId ? sql`AND tenant_id = ${where.tenantId}` : sql``}
         AND updated_at > now() - interval '10 minutes'
       ORDER BY updated_at DESC LIMIT 1`,
    );
    if (job) await transition(db, { jobId: job.id, event, actor, expected: { state: job.state, version: job.stateVersion } });
  };
  let tick = 0;
  const people = setInterval(() => {
    tick++;
    const tenant: Actor = { kind: "tenant", id: "dana@acme.example" };
    if (tick % 4 === 0) act({ state: "running", type: "export.tenant_data", tenantId: "acme" }, "cancel", tenant).catch(log);
    if (tick % 6 === 0) act({ state: "running", type: "media.render" }, "pause", OPERATOR).catch(log);
    if (tick % 6 === 3) act({ state: "paused" }, "resume", OPERATOR).catch(log);
  }, 5_000);

  return () => {
    clearInterval(submit);
    clearInterval(people);
  };
}
