import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../db/client";
import { withScope } from "../db/scope";
import { setupTestDb } from "../db/test-db";
import { previewBulk, runBulkOperation, startBulk } from "./bulk";
import { countByState, listJobs } from "./queries";
import { enqueue } from "./enqueue";
import { parseJobFilters } from "./filters";
import { operationOutcome } from "./operation";
import { api, operator, runAndEnd } from "./test-helpers";
import { transition } from "./transition";
import type { JobRow } from "./types";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const t = setupTestDb();
const app = t.connect({ role: "app", max: 2 });
const AUDIT = {
  userId: null,
  actor: "op@example.test",
  role: "operator",
  tenantId: null,
  action: "bulk.replay",
  description: "dead · report.generate",
} as const;

/** A job that died on its only attempt. */
async function deadJob(tenantId: string, queue: string): Promise<JobRow> {
  const { job } = await enqueue(
    t.pool,
    { tenantId, queue, type: "report.generate", params: { report: "daily_usage", period: "2026-11" }, maxAttempts: 1 },
    api,
  );
  return runAndEnd(t.pool, job, "abandon", { error: { class: "Boom", message: "boom" } });
}

const staff = <T>(fn: (tx: Db) => Promise<T>) => withScope(app, { all: true }, (tx) => fn(tx as unknown as Db));
const asTenant = <T>(id: string, fn: (tx: Db) => Promise<T>) => withScope(app, { tenantId: id }, (tx) => fn(tx as unknown as Db));
const ids = (p: { jobs: { id: string }[] }) => p.jobs.map((j) => j.id).sort();

describe("the jobs a bulk operation touched", () => {
  let operationId: string;
  let acme: JobRow[];
  let globex: JobRow;
  let untouched: JobRow;

  beforeAll(async () => {
    const queue = `op-${randomUUID().slice(0, 8)}`;
    acme = [await deadJob("acme", queue), await deadJob("acme", queue), await deadJob("acme", queue)];
    globex = await deadJob("globex", queue);
    untouched = await deadJob("acme", queue);
    const preview = await previewBulk(t.pool, { selection: { ids: [...acme, globex].map((j) => j.id) }, event: "replay", actor: operator });
    // One of them is replayed by hand first: the operation's item for it is refused as a conflict.
    await transition(t.pool, { jobId: acme[2]!.id, event: "replay", actor: operator, expected: { state: "dead", version: acme[2]!.stateVersion } });
    ({ operationId } = await startBulk(t.pool, {
      frozen: preview.frozen,
      event: "replay",
      actor: operator,
      description: AUDIT.description,
      audit: AUDIT,
    }));
    await runBulkOperation(t.pool, operationId);
    // After the replay: one succeeds, one dies again; globex's stays queued.
    const listed = async (id: string) => (await staff((tx) => listJobs(tx, parseJobFilters({ q: id })))).jobs[0] as unknown as JobRow;
    await runAndEnd(t.pool, await listed(acme[0]!.id), "finish", { result: { ok: true } });
    await runAndEnd(t.pool, await listed(acme[1]!.id), "abandon", { error: { class: "Boom", message: "again" } });
  });

  it("lists exactly the operation's jobs, in any tab", async () => {
    const all = await staff((tx) => listJobs(tx, parseJobFilters({ operation: operationId })));
    expect(ids(all)).toEqual([...acme, globex].map((j) => j.id).sort());
    expect(ids(all)).not.toContain(untouched.id);
    expect(ids(await staff((tx) => listJobs(tx, parseJobFilters({ operation: operationId, state: "dead" }))))).toEqual([acme[1]!.id]);
    expect(ids(await staff((tx) => listJobs(tx, parseJobFilters({ operation: operationId, state: "succeeded" }))))).toEqual([acme[0]!.id]);
    const counts = await staff((tx) => countByState(tx, { operation: operationId }));
    expect(counts).toMatchObject({ succeeded: { n: 1 }, dead: { n: 1 }, queued: { n: 2 } });
    // With an id too: the id's job only if the operation touched it.
    expect(ids(await staff((tx) => listJobs(tx, parseJobFilters({ operation: operationId, q: globex.id }))))).toEqual([globex.id]);
    expect(ids(await staff((tx) => listJobs(tx, parseJobFilters({ operation: operationId, q: untouched.id }))))).toEqual([]);
  });

  it("sums up where the applied jobs are now, and what the operation refused", async () => {
    const o = await staff((tx) => operationOutcome(tx, operationId));
    expect(o).toMatchObject({
      id: operationId,
      operation: { event: "replay", description: AUDIT.description, actorId: operator.id, status: "done", total: 4 },
      items: { applied: 3, refused: 1, pending: 0 },
      now: { succeeded: 1, dead: 1, queued: 1 },
    });
  });

  it("is scoped like the list: a tenant sees only its own jobs, and not the operation's words", async () => {
    const mine = await asTenant("acme", (tx) => listJobs(tx, parseJobFilters({ operation: operationId, tenant: "acme" })));
    expect(ids(mine)).toEqual(acme.map((j) => j.id).sort());
    // Row-level security alone, without the tenant filter the console adds, keeps globex's job out too.
    expect(ids(await asTenant("acme", (tx) => listJobs(tx, parseJobFilters({ operation: operationId }))))).toEqual(acme.map((j) => j.id).sort());
    expect(ids(await asTenant("globex", (tx) => listJobs(tx, parseJobFilters({ operation: operationId, tenant: "globex" }))))).toEqual([globex.id]);
    const o = await asTenant("globex", (tx) => operationOutcome(tx, operationId, { tenant: "globex" }));
    expect(o).toEqual({ id: operationId, operation: null, items: { applied: 1, refused: 0, pending: 0 }, now: { queued: 1 } });
  });

  it("says when there is no such operation", async () => {
    expect(await staff((tx) => operationOutcome(tx, randomUUID()))).toBeNull();
    expect(await staff((tx) => operationOutcome(tx, "not-a-uuid"))).toBeNull();
    expect((await staff((tx) => listJobs(tx, parseJobFilters({ operation: randomUUID() })))).jobs).toEqual([]);
    // A malformed id is dropped from the filters, like any malformed filter value.
    expect(parseJobFilters({ operation: "x'; DROP TABLE jobs" }).operation).toBeUndefined();
  });

  it("is one audit entry, naming every job it froze and the operation", async () => {
    const rows = await execute<{ action: string; outcome: string; jobIds: string[]; operationId: string; reason: string }>(
      t.pool,
      sql`
      SELECT action, outcome, job_ids, operation_id, reason FROM audit_log WHERE action = 'bulk.replay'`,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ outcome: "applied", operationId });
    expect([...rows[0]!.jobIds].sort()).toEqual([...acme, globex].map((j) => j.id).sort());
    expect(rows[0]!.reason).toContain(operationId);
  });
});
