import { describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { enqueue, EnqueueError, type EnqueueInput } from "./enqueue";
import { api } from "./test-helpers";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const db = setupTestDb({ max: 2 });
const REPORT = { tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" } } as const;
const count = async () => (await execute<{ n: number }>(db.pool, sql`SELECT count(*)::int AS n FROM job_catalog`))[0]!.n;
const refusal = (input: EnqueueInput, opts?: Parameters<typeof enqueue>[3]) =>
  enqueue(db.pool, input, api, opts).then(
    () => null,
    (e: unknown) => e,
  );

describe("enqueue refuses what PostgreSQL cannot store with a typed error naming the field, never a driver error", () => {
  it("a NUL or a lone surrogate in the tenant, type, queue, idempotency key, params or a params key", async () => {
    const n = await count();
    const cases: [EnqueueInput, string][] = [
      [{ ...REPORT, tenantId: "ac\u0000me" }, "tenantId"],
      [{ ...REPORT, tenantId: "acme\ud800" }, "tenantId"],
      [{ ...REPORT, type: "report.generate\u0000" }, "type"],
      [{ ...REPORT, idempotencyKey: "order\u0000-1" }, "idempotencyKey"],
      [{ ...REPORT, idempotencyKey: "order-\udfff" }, "idempotencyKey"],
      [{ ...REPORT, params: { report: "daily_usage", period: "2026-11", note: ["ok", { deep: "x\u0000" }] } }, "params.note.1.deep"],
      [{ ...REPORT, params: { ["k\u0000"]: 1 } }, "params"],
    ];
    for (const [input, path] of cases) {
      const e = await refusal(input);
      expect(e, path).toBeInstanceOf(EnqueueError);
      expect(e, path).toMatchObject({ code: path.startsWith("params") ? "invalid_params" : "invalid_input", issues: [{ path }] });
    }
    expect(await count()).toBe(n);
  });

  it("notBefore from year 2000 to a year ahead; year 1 (read back as 2001), year 0 and year 3000 are refused", async () => {
    for (const notBefore of ["0001-01-01T00:00:00Z", "0000-06-01T00:00:00Z", "3000-01-01T00:00:00Z", new Date(Date.now() + 400 * 86_400_000)]) {
      const e = await refusal({ ...REPORT, notBefore });
      expect(e, String(notBefore)).toMatchObject({ code: "invalid_input", issues: [{ path: "notBefore" }] });
    }
    const at = new Date("2026-12-24T10:00:00.000Z");
    const ok = await enqueue(db.pool, { ...REPORT, notBefore: at }, api);
    expect(ok.job.notBefore).toEqual(at);
  });

  it("a tenant or a person may only name the queue its type declares; Jobscope's own code may name any", async () => {
    for (const queue of ["jobscope", "jobscope.alerts", "exports", "0000-invented"]) {
      for (const submitter of ["tenant_api", "console"] as const) {
        expect(await refusal({ ...REPORT, queue }, { submitter }), `${queue} ${submitter}`).toMatchObject({ code: "unknown_queue" });
      }
    }
    expect((await enqueue(db.pool, { ...REPORT, queue: "default" }, api, { submitter: "tenant_api" })).job.queue).toBe("default");
    expect((await enqueue(db.pool, { ...REPORT, queue: "a-test-queue" }, api)).job.queue).toBe("a-test-queue");
  });
});
