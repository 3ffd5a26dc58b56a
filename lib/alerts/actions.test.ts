import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { setupTestDb } from "../db/test-db";
import { ACME, GLOBEX, lastAudit, OPERATOR, signIn, SUPPORT } from "../frame/test-actions";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

// The alerts page's server actions, called directly as a crafted POST would call them. Only the
// session is stood in for (who is signed in); the rest of the viewer module and the database
// (as the console's role, row-level security on) are real.
vi.mock("@/lib/auth/viewer", async (real) => (await import("../frame/test-actions")).withSession(await real()));

const db = setupTestDb({ consolePool: true });
let actions: typeof import("@/app/alerts/actions");
const rules = async () => (await execute<{ n: number }>(db.pool, sql`SELECT count(*)::int AS n FROM alert_rules`))[0]!.n;

const spans = new InMemorySpanExporter();

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
  actions = await import("@/app/alerts/actions");
});
afterAll(async () => {
  trace.disable();
  context.disable();
});

describe("alert actions", () => {
  it("an operator creates a rule (its secret shown once), sends a test alert and disables it; each is audited", async () => {
    signIn(OPERATOR);
    const created = await actions.createAlertRuleAction({
      kind: "job_dead",
      name: "dead exports",
      url: "https://hooks.example.com/a",
      queue: "exports",
    });
    expect(created).toMatchObject({ ok: true, data: { secret: expect.stringMatching(/^whsec_[0-9a-f]{48}$/) } });
    expect(await lastAudit(db.pool)).toMatchObject({ actor: OPERATOR.email, action: "alert.create", outcome: "applied" });
    const id = created.ok ? created.data.id : "";
    const [row] = await execute(db.pool, sql`SELECT tenant_id, queue, created_by FROM alert_rules WHERE id = ${id}`);
    expect(row).toEqual({ tenantId: null, queue: "exports", createdBy: OPERATOR.email });
    const test = await actions.sendTestAlertAction({ id });
    expect(test).toMatchObject({ ok: true });
    const [job] = await execute(db.pool, sql`SELECT type, tenant_id, params FROM job_catalog WHERE id = ${test.ok ? test.data.jobId : null}`);
    expect(job).toMatchObject({ type: "jobscope.webhook", tenantId: "jobscope" });
    expect(await actions.setAlertRuleEnabledAction({ id, enabled: false })).toMatchObject({ ok: true });
    expect(await lastAudit(db.pool)).toMatchObject({ action: "alert.disable", outcome: "applied" });
    // Each console action ran in a span of its own (lib/tracing), the test alert's enqueue inside its action's.
    const finished = spans.getFinishedSpans();
    expect(finished.map((s) => s.name)).toEqual(
      expect.arrayContaining(["console alert.create", "console alert.test", "console alert.enable", "jobscope.enqueue"]),
    );
    const testSpan = finished.find((s) => s.name === "console alert.test")!;
    expect(finished.find((s) => s.name === "jobscope.enqueue")!.parentSpanContext?.spanId).toBe(testSpan.spanContext().spanId);
  });

  it("bad input gets a clear error and writes nothing", async () => {
    signIn(OPERATOR);
    const before = await rules();
    expect(await actions.createAlertRuleAction({ kind: "job_dead", name: "x", url: "not a url" })).toMatchObject({
      ok: false,
      error: { code: "invalid_input", message: /url/ },
    });
    expect(await actions.createAlertRuleAction({ kind: "queue_oldest_due", name: "x", url: "https://h.example.com/" })).toMatchObject({
      ok: false,
      error: { code: "invalid_input", message: /queue/ },
    });
    expect(await actions.createAlertRuleAction({ kind: "nope", name: "x", url: "https://h.example.com/" })).toMatchObject({
      ok: false,
      error: { code: "invalid_input" },
    });
    expect(await actions.createAlertRuleAction({ kind: "job_dead", name: "x", url: "https://h.example.com/", secret: "mine" })).toMatchObject({
      ok: false,
      error: { code: "invalid_input" },
    });
    expect(await actions.setAlertRuleEnabledAction({ id: "not-a-uuid", enabled: true })).toMatchObject({
      ok: false,
      error: { code: "invalid_input" },
    });
    expect(await rules()).toBe(before);
    expect(await lastAudit(db.pool)).toMatchObject({ outcome: "invalid" });
  });

  it("support may not set alerts; a tenant sets one for its own dead jobs only, and cannot see or change another tenant's", async () => {
    const before = await rules();
    signIn(SUPPORT);
    expect(await actions.createAlertRuleAction({ kind: "job_dead", name: "x", url: "https://h.example.com/" })).toMatchObject({
      ok: false,
      error: { code: "forbidden" },
    });
    signIn(null);
    expect(await actions.createAlertRuleAction({ kind: "job_dead", name: "x", url: "https://h.example.com/" })).toMatchObject({
      ok: false,
      error: { code: "forbidden" },
    });
    signIn(ACME);
    expect(await actions.createAlertRuleAction({ kind: "drift_rejection", name: "x", url: "https://h.example.com/" })).toMatchObject({
      ok: false,
      error: { code: "refused", message: /own dead jobs/ },
    });
    expect(await actions.createAlertRuleAction({ kind: "job_dead", name: "x", url: "http://10.0.0.5/hook" })).toMatchObject({
      ok: false,
      error: { code: "invalid_input", message: /internal address/ },
    });
    expect(await rules()).toBe(before);
    const mine = await actions.createAlertRuleAction({ kind: "job_dead", name: "acme dead", url: "https://hooks.acme.example/x" });
    expect(mine).toMatchObject({ ok: true });
    const id = mine.ok ? mine.data.id : "";
    expect((await execute(db.pool, sql`SELECT tenant_id FROM alert_rules WHERE id = ${id}`))[0]).toEqual({ tenantId: "acme" });
    signIn(GLOBEX);
    expect(await actions.setAlertRuleEnabledAction({ id, enabled: false })).toMatchObject({
      ok: false,
      error: { code: "refused", message: /does not exist/ },
    });
    expect(await actions.sendTestAlertAction({ id })).toMatchObject({ ok: false, error: { code: "refused" } });
    expect((await execute(db.pool, sql`SELECT enabled FROM alert_rules WHERE id = ${id}`))[0]).toEqual({ enabled: true });
  });
});
