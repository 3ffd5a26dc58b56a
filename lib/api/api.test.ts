import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { anonymousAudit } from "../audit/anonymous";
import { setupTestDb } from "../db/test-db";
import { getJob, newJob, runJob } from "../jobs/test-helpers";
import { transition } from "../jobs/transition";
import type { JobRow } from "../jobs/types";
import { withApiKey, ok } from "./http";
import { createApiKey, listApiKeys, revokeApiKey, verifyApiKey } from "./keys";
import { RateLimiter } from "./rate-limit";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";
import { closeDb } from "../db/client";

// The route handlers use the process pool: point it at this test's database, as the console's
// runtime role (row-level security applies), before any handler runs.
const db = setupTestDb({ consolePool: true });
const app = db.connect({ role: "app", max: 2 });
let routes: {
  jobs: typeof import("@/app/api/v1/jobs/route");
  job: typeof import("@/app/api/v1/jobs/[id]/route");
  cancel: typeof import("@/app/api/v1/jobs/[id]/cancel/route");
  openapi: typeof import("@/app/api/v1/openapi.json/route");
};

const ADMIN = { userId: "u-admin", actor: "admin@jobscope.local", role: "admin" as const, tenantId: null };
let acme: { key: { id: string; prefix: string }; secret: string };
let globex: { key: { id: string; prefix: string }; secret: string };
let globexJob: JobRow;

const BASE = "http://jobscope.test/api/v1";

function call(path: string, opts: { secret?: string | null; method?: string; body?: unknown; raw?: string } = {}) {
  const headers = new Headers();
  if (opts.secret !== null) headers.set("authorization", `Bearer ${opts.secret ?? acme.secret}`);
  const body = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
  if (body !== undefined) headers.set("content-type", "application/json");
  return new Request(`${BASE}${path}`, { method: opts.method ?? (body !== undefined ? "POST" : "GET"), headers, body });
}
const params = (id: string) => ({ params: Promise.resolve({ id }) });
// Response bodies are read loosely: the assertions say what shape they must have.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies of a dozen response shapes, read only inside expect(), which checks them
const json = async (r: Response) => ({ status: r.status, body: (await r.json()) as any, headers: r.headers });

const submit = (body: unknown, secret?: string) => routes.jobs.POST(call("/jobs", { body, secret })).then(json);
const get = (id: string, secret?: string) => routes.job.GET(call(`/jobs/${id}`, { secret }), params(id)).then(json);
const cancel = (id: string, body?: unknown, secret?: string) =>
  routes.cancel.POST(call(`/jobs/${id}/cancel`, { method: "POST", body, secret }), params(id)).then(json);
const list = (query: string, secret?: string) => routes.jobs.GET(call(`/jobs${query}`, { secret })).then(json);

const REPORT = { type: "report.generate", params: { report: "daily_usage", period: "2026-11" } };

const auditRows = (actor: string) =>
  execute<{ action: string; outcome: string; via: string; role: string; tenantId: string | null; jobIds: string[]; reason: string }>(
    db.pool,
    sql`
    SELECT action, outcome, via, role, tenant_id, job_ids, reason FROM audit_log WHERE actor = ${actor} ORDER BY id`,
  );
const jobCount = () => execute<{ n: number }>(db.pool, sql`SELECT count(*)::int AS n FROM jobs`).then((r) => r[0]!.n);

beforeAll(async () => {
  process.env.JOBSCOPE_API_BURST = "100000";
  routes = {
    jobs: await import("@/app/api/v1/jobs/route"),
    job: await import("@/app/api/v1/jobs/[id]/route"),
    cancel: await import("@/app/api/v1/jobs/[id]/cancel/route"),
    openapi: await import("@/app/api/v1/openapi.json/route"),
  };
  // Keys are managed by the console's role as well.
  acme = await createApiKey(app, { tenantId: "acme", name: "ci" }, ADMIN);
  globex = await createApiKey(app, { tenantId: "globex", name: "ci" }, ADMIN);
  globexJob = await newJob(db.pool, { tenantId: "globex" });
});

describe("API keys", () => {
  it("stores only the SHA-256 of the secret and a short prefix; the secret is jsk_ + 32 random bytes", async () => {
    expect(acme.secret).toMatch(/^jsk_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(acme.secret.slice(4), "base64url")).toHaveLength(32);
    const [row] = await execute(db.pool, sql`SELECT * FROM api_keys WHERE id = ${acme.key.id}`);
    expect(row).toMatchObject({ tenantId: "acme", prefix: acme.secret.slice(0, 12), createdBy: ADMIN.actor, revokedAt: null });
    expect(row!.hash).toBe(createHash("sha256").update(acme.secret).digest("hex"));
    expect(JSON.stringify(row)).not.toContain(acme.secret.slice(12));
    expect(await listApiKeys(app, "acme")).toEqual([expect.not.objectContaining({ hash: expect.anything() })]);
    const [audit] = await execute(db.pool, sql`SELECT * FROM audit_log WHERE action = 'api_key.create' AND reason LIKE ${`%${acme.key.prefix}%`}`);
    expect(audit).toMatchObject({ actor: ADMIN.actor, via: "console", outcome: "applied" });
  });

  it("a wrong, malformed or missing key is unauthenticated, and a refused submit is audited as denied", async () => {
    const wrong = `jsk_${"A".repeat(43)}`;
    for (const secret of [wrong, "jsk_short", `${acme.secret}x`, ""]) {
      const r = await submit(REPORT, secret);
      expect(r.status, secret).toBe(401);
      expect(r.body).toEqual({ error: { code: "unauthenticated", message: expect.any(String) } });
      expect(r.headers.get("www-authenticate")).toMatch(/^Bearer/);
    }
    expect((await routes.jobs.GET(call("/jobs", { secret: null }))).status).toBe(401);
    expect(await verifyApiKey(app, `Basic ${acme.secret}`)).toBeNull();
    // Anonymous denials from one address are aggregated, so a flood writes a bounded number of rows: the first is written at once,
    // the other three as one row with repeat_count 3 when the window closes.
    const denied = () =>
      execute<{ outcome: string; repeatCount: number }>(
        db.pool,
        sql`
      SELECT outcome, repeat_count FROM audit_log WHERE actor = 'anonymous' AND via = 'api' AND action = 'job.submit' ORDER BY id`,
      );
    expect(await denied()).toEqual([{ outcome: "denied", repeatCount: 1 }]);
    await anonymousAudit().flush();
    expect(await denied()).toEqual([
      { outcome: "denied", repeatCount: 1 },
      { outcome: "denied", repeatCount: 3 },
    ]);
  });

  it("last_used_at is written on first use, then at most once a minute", async () => {
    const k = await createApiKey(app, { tenantId: "acme", name: "clock" }, ADMIN);
    const used = async () => (await execute(db.pool, sql`SELECT last_used_at FROM api_keys WHERE id = ${k.key.id}`))[0]!.lastUsedAt as Date | null;
    const t0 = new Date("2026-11-29T10:00:00Z");
    expect(await used()).toBeNull();
    expect(await verifyApiKey(app, `Bearer ${k.secret}`, t0)).toMatchObject({ tenantId: "acme", prefix: k.key.prefix });
    expect(await used()).toEqual(t0);
    await verifyApiKey(app, `Bearer ${k.secret}`, new Date(t0.getTime() + 59_000));
    expect(await used()).toEqual(t0);
    const t1 = new Date(t0.getTime() + 61_000);
    await verifyApiKey(app, `Bearer ${k.secret}`, t1);
    expect(await used()).toEqual(t1);
  });

  it("a revoked key stops working at once; another tenant's owner cannot revoke it; revoking is audited", async () => {
    const k = await createApiKey(app, { tenantId: "acme", name: "to revoke" }, ADMIN);
    expect((await list("", k.secret)).status).toBe(200);
    const globexOwner = { userId: "u-g", actor: "owner@globex.example", role: "tenant" as const, tenantId: "globex" };
    await expect(revokeApiKey(app, { id: k.key.id, tenantId: "globex" }, globexOwner)).rejects.toMatchObject({ code: "not_found" });
    expect((await list("", k.secret)).status).toBe(200);
    const acmeOwner = { userId: "u-a", actor: "dana@acme.example", role: "tenant" as const, tenantId: "acme" };
    const revoked = await revokeApiKey(app, { id: k.key.id, tenantId: "acme" }, acmeOwner);
    expect(revoked.revokedAt).toBeInstanceOf(Date);
    expect((await list("", k.secret)).status).toBe(401);
    await expect(revokeApiKey(app, { id: k.key.id, tenantId: "acme" }, acmeOwner)).rejects.toMatchObject({ code: "not_found" });
    expect(await auditRows("dana@acme.example")).toEqual([expect.objectContaining({ action: "api_key.revoke", outcome: "applied", via: "console" })]);
    expect(await auditRows("owner@globex.example")).toEqual([]);
  });

  it("a key for an unknown tenant or without a name is refused, and nothing is written", async () => {
    const before = await execute(db.pool, sql`SELECT count(*)::int AS n FROM api_keys`);
    await expect(createApiKey(app, { tenantId: "nope", name: "x" }, ADMIN)).rejects.toMatchObject({ code: "invalid_input" });
    await expect(createApiKey(app, { tenantId: "acme", name: "  " }, ADMIN)).rejects.toMatchObject({ code: "invalid_input" });
    expect(await execute(db.pool, sql`SELECT count(*)::int AS n FROM api_keys`)).toEqual(before);
  });
});

describe("POST /api/v1/jobs", () => {
  it("submits a job for the key's tenant, audited with the key as actor", async () => {
    const r = await submit({ ...REPORT, priority: 3 });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ tenantId: "acme", type: "report.generate", state: "queued", priority: 3, stateVersion: 0 });
    expect(r.body).not.toHaveProperty("leaseOwner");
    expect(r.headers.get("location")).toBe(`/api/v1/jobs/${r.body.id}`);
    const [event] = await execute(db.pool, sql`SELECT actor_kind, actor_id FROM job_events WHERE job_id = ${r.body.id}`);
    expect(event).toEqual({ actorKind: "api", actorId: `api-key:${acme.key.prefix}` });
    const audit = await auditRows(`api-key:${acme.key.prefix}`);
    expect(audit.at(-1)).toMatchObject({
      action: "job.submit",
      outcome: "applied",
      via: "api",
      role: "tenant",
      tenantId: "acme",
      jobIds: [r.body.id],
    });
  });

  it("an idempotency key replayed returns the existing job with 200, and creates nothing", async () => {
    const first = await submit({ ...REPORT, idempotencyKey: "order-42" });
    expect(first.status).toBe(201);
    const n = await jobCount();
    const again = await submit({ ...REPORT, idempotencyKey: "order-42", priority: 9 });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.priority).toBe(0);
    expect(await jobCount()).toBe(n);
    // The same idempotency key in another tenant is another job.
    const other = await submit({ ...REPORT, idempotencyKey: "order-42" }, globex.secret);
    expect(other.status).toBe(201);
    expect(other.body).toMatchObject({ tenantId: "globex" });
  });

  it("mass assignment is refused: tenantId, state or any unknown field → 400, nothing written, audited as invalid", async () => {
    const n = await jobCount();
    const attempts = [
      { ...REPORT, tenantId: "globex" },
      { ...REPORT, state: "succeeded" },
      { ...REPORT, attempt: 5 },
      { ...REPORT, stateVersion: 9 },
      { ...REPORT, leaseOwner: "w-evil" },
    ];
    for (const body of attempts) {
      const r = await submit(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe("invalid_input");
      expect(r.body.error.message).toMatch(/^Not submitted: unknown field "(tenantId|state|attempt|stateVersion|leaseOwner)"\.$/);
    }
    expect(await jobCount()).toBe(n);
    const invalid = (await auditRows(`api-key:${acme.key.prefix}`)).filter((a) => a.outcome === "invalid");
    expect(invalid.length).toBeGreaterThanOrEqual(attempts.length);
  });

  it("bad input has a stable code: unknown type, invalid params, malformed JSON, bad times", async () => {
    const n = await jobCount();
    expect((await submit({ type: "nope", params: {} })).body.error.code).toBe("unknown_type");
    const bad = await submit({ type: "report.generate", params: { report: "daily_usage", period: "soon" } });
    expect(bad.body.error).toMatchObject({ code: "invalid_params", issues: [{ path: "period", message: expect.any(String) }] });
    expect((await submit({ ...REPORT, notBefore: "tomorrow" })).body.error.code).toBe("invalid_input");
    expect((await submit({ ...REPORT, params: ["x"] })).body.error.code).toBe("invalid_input");
    const malformed = await routes.jobs.POST(call("/jobs", { raw: "{not json" })).then(json);
    expect(malformed).toMatchObject({ status: 400, body: { error: { code: "invalid_input" } } });
    const huge = await submit({ ...REPORT, idempotencyKey: "x".repeat(70_000) });
    expect(huge).toMatchObject({ status: 413, body: { error: { code: "too_large" } } });
    expect(await jobCount()).toBe(n);
  });

  it("a type only Jobscope may submit (the demo's poison.crash) is refused to tenants, audited, nothing written", async () => {
    const n = await jobCount();
    const r = await submit({ type: "poison.crash", params: {} });
    expect(r).toMatchObject({ status: 400, body: { error: { code: "unknown_type", message: expect.stringContaining("unknown job type") } } });
    expect(await jobCount()).toBe(n);
    const audit = await auditRows(`api-key:${acme.key.prefix}`);
    expect(audit.at(-1)).toMatchObject({ action: "job.submit", outcome: "invalid" });
    const doc: unknown = await routes.openapi.GET().json();
    expect(JSON.stringify(doc)).not.toContain("poison.crash");
  });
});

describe("what a tenant may name, and text and times that cannot be stored", () => {
  it("a tenant cannot invent queues or reach Jobscope's own: only its type's queue, refused otherwise, nothing written", async () => {
    const n = await jobCount();
    for (const queue of ["0000-first", "jobscope", "jobscope.alerts", "exports"]) {
      const r = await submit({ ...REPORT, queue, priority: 0 });
      expect(r.status, queue).toBe(400);
      expect(r.body.error, queue).toMatchObject({ code: "unknown_queue", message: expect.stringContaining("its queues: default") });
    }
    expect(await jobCount()).toBe(n);
    expect((await auditRows(`api-key:${acme.key.prefix}`)).at(-1)).toMatchObject({ action: "job.submit", outcome: "invalid" });
    expect((await submit({ ...REPORT, queue: "default" })).body).toMatchObject({ queue: "default" });
    expect((await submit(REPORT)).body).toMatchObject({ queue: "default" });
  });

  it("an unknown type's error lists only the types the tenant may submit", async () => {
    const r = await submit({ type: "nope", params: {} });
    expect(r.body.error.code).toBe("unknown_type");
    expect(r.body.error.message).toContain("report.generate");
    for (const internal of ["jobscope.bulk", "jobscope.webhook", "poison.crash"]) {
      expect(r.body.error.message).not.toContain(internal);
      const own = (await submit({ type: internal, params: {} })).body.error;
      expect(own.code).toBe("unknown_type");
      expect(own.message.split("known:")[1]).not.toMatch(/jobscope\.|poison/);
    }
  });

  it("a NUL or a lone surrogate in params, keys, the type or the idempotency key is a 400 naming the field, nothing written", async () => {
    const n = await jobCount();
    const bodies: [string, string][] = [
      ['{"type":"media.render","params":{"assetId":"a\\u0000b","frames":1}}', "params.assetId"],
      ['{"type":"media.render","params":{"assetId":"a\\ud800b","frames":1}}', "params.assetId"],
      ['{"type":"media.render","params":{"assetId":"x","frames":1,"a\\u0000":1}}', "params"],
      ['{"type":"report.generate","params":{"report":"daily_usage","period":"2026-11"},"idempotencyKey":"k\\u0000"}', "idempotencyKey"],
      ['{"type":"report\\udc00","params":{}}', "type"],
    ];
    for (const [raw, path] of bodies) {
      const r = await routes.jobs.POST(call("/jobs", { raw })).then(json);
      expect(r.status, raw).toBe(400);
      expect(r.body.error, raw).toMatchObject({ code: "invalid_input", issues: [{ path }] });
      expect(r.body.error.message, raw).toContain(path);
    }
    expect(await jobCount()).toBe(n);
  });

  it("notBefore outside 2000 … a year ahead is refused with a message (year 1 came back as 2001; year 3000 was accepted)", async () => {
    const n = await jobCount();
    for (const notBefore of ["0001-01-01T00:00:00Z", "0000-01-01T00:00:00Z", "3000-01-01T00:00:00Z", "1999-12-31T23:59:59Z"]) {
      const r = await submit({ ...REPORT, notBefore });
      expect(r.status, notBefore).toBe(400);
      expect(r.body.error.message, notBefore).toMatch(/notBefore: .*(before|after)/);
    }
    expect(await jobCount()).toBe(n);
    const soon = new Date(Date.now() + 86_400_000).toISOString();
    expect((await submit({ ...REPORT, notBefore: soon })).body.notBefore).toBe(soon);
  });

  it("query parameters are named as such; a NUL, year 0000 or a forged cursor of year 0000 is a 400, not a 500", async () => {
    const limit = await list("?limit=0");
    expect(limit).toMatchObject({
      status: 400,
      body: { error: { code: "invalid_input", message: expect.stringMatching(/^query parameter limit: /) } },
    });
    expect((await list("?tenant=globex")).body.error.message).toBe('unknown query parameter "tenant"');
    expect((await list("?state=queued&state=dead")).body.error.message).toMatch(/^query parameter state: give it once/);
    const forged = Buffer.from("0000-01-01T00:00:00Z|00000000-0000-4000-8000-000000000000").toString("base64url");
    for (const q of ["?type=a%00b", "?queue=%00", "?createdFrom=0000-01-01T00:00:00Z", "?createdTo=0000-01-01T00:00:00Z", `?after=${forged}`]) {
      const r = await list(q);
      expect(r.status, q).toBe(400);
      expect(r.body.error.message, q).toMatch(/^query parameter /);
    }
  });

  it("a key's repeated refusals are aggregated: one row at once, the rest as one row with a count", async () => {
    const k = await createApiKey(app, { tenantId: "globex", name: "repeat" }, ADMIN);
    for (let i = 0; i < 5; i++) expect((await submit({ type: "nope-again", params: {} }, k.secret)).status).toBe(400);
    const rows = () =>
      execute<{ repeatCount: number }>(
        db.pool,
        sql`SELECT repeat_count FROM audit_log WHERE actor = ${`api-key:${k.key.prefix}`} AND outcome = 'invalid' ORDER BY id`,
      );
    expect(await rows()).toEqual([{ repeatCount: 1 }]);
    await anonymousAudit().flush();
    expect(await rows()).toEqual([{ repeatCount: 1 }, { repeatCount: 4 }]);
  });

  it("a body over 64 kB is refused with 413 as it streams in, without reading the rest of it", async () => {
    let pulled = 0;
    const chunk = new Uint8Array(16 * 1024).fill(32);
    // 8 MB, sent as it is asked for (no Content-Length): a server that reads it all pulls every chunk.
    const endless = new ReadableStream<Uint8Array>({
      pull(c) {
        if (pulled >= 8 * 1024 * 1024) return c.close();
        pulled += chunk.byteLength;
        c.enqueue(chunk);
      },
    });
    const headers = new Headers({ authorization: `Bearer ${acme.secret}`, "content-type": "application/json" });
    const request = new Request(`${BASE}/jobs`, { method: "POST", headers, body: endless, duplex: "half" } as RequestInit);
    const r = await routes.jobs.POST(request).then(json);
    expect(r).toMatchObject({ status: 413, body: { error: { code: "too_large" } } });
    expect(pulled).toBeLessThan(1024 * 1024);
  });
});

describe("GET /api/v1/jobs", () => {
  it("lists only the key's tenant's jobs, with filters and keyset cursors that cover every job once", async () => {
    const PAGING = { type: "media.render", params: { assetId: "paging", frames: 1 } };
    for (let i = 0; i < 5; i++) await submit(PAGING);
    await submit(PAGING, globex.secret);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 10; page++) {
      const r = await list(`?queue=media&limit=2${cursor ? `&after=${cursor}` : ""}`);
      expect(r.status).toBe(200);
      for (const j of r.body.jobs) expect(j).toMatchObject({ tenantId: "acme", queue: "media" });
      seen.push(...r.body.jobs.map((j: { id: string }) => j.id));
      cursor = r.body.next;
      if (!cursor) break;
    }
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
    // Back one page from the last.
    const last = await list(`?queue=media&limit=2&after=${(await list("?queue=media&limit=2")).body.next}`);
    const back = await list(`?queue=media&limit=2&before=${last.body.prev}`);
    expect(back.body.jobs.map((j: { id: string }) => j.id)).toEqual(seen.slice(0, 2));

    const all = await list("?limit=200");
    expect(all.body.jobs.length).toBeGreaterThan(5);
    expect(all.body.jobs.every((j: { tenantId: string }) => j.tenantId === "acme")).toBe(true);
    expect(all.body.jobs.some((j: { id: string }) => j.id === globexJob.id)).toBe(false);

    expect((await list("?state=cancelled&queue=media")).body.jobs).toEqual([]);
    expect((await list("?type=media.render&queue=media")).body.jobs).toHaveLength(5);
    const future = await list(`?queue=media&createdFrom=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`);
    expect(future.body.jobs).toEqual([]);
  });

  it("refuses another tenant's filter, unknown or repeated parameters, and forged cursors", async () => {
    for (const q of [
      "?tenant=globex",
      "?tenantId=globex",
      "?state=nope",
      "?limit=0",
      "?after=garbage",
      "?state=queued&state=dead",
      "?createdFrom=yesterday",
    ]) {
      const r = await list(q);
      expect(r.status, q).toBe(400);
      expect(r.body.error.code, q).toBe("invalid_input");
    }
  });
});

describe("GET /api/v1/jobs/{id} and POST …/cancel", () => {
  it("returns the key's tenant's job with its runs and events", async () => {
    const job = await newJob(db.pool, { tenantId: "acme" });
    await runJob(db.pool, job);
    const r = await get(job.id);
    expect(r.status).toBe(200);
    expect(r.body.job).toMatchObject({ id: job.id, state: "running", attempt: 1 });
    expect(r.body.runs).toEqual([expect.objectContaining({ attempt: 1, workerId: "", outcome: null })]);
    expect(r.body.events.map((e: { event: string }) => e.event)).toEqual(["submit", "claim", "start"]);
    expect(r.body.eventCount).toBe(3);
  });

  it("shows what the tenant's console shows: no worker ids, lease owners or staff e-mail addresses (one redaction)", async () => {
    const job = await newJob(db.pool, { tenantId: "acme" });
    await runJob(db.pool, job, "w-secret-7");
    const staff = { kind: "operator" as const, id: "staff.member@jobscope.example" };
    const paused = await transition(db.pool, { jobId: job.id, event: "pause", actor: staff });
    expect(paused.ok).toBe(true);
    const resumed = await transition(db.pool, { jobId: job.id, event: "resume", actor: staff });
    expect(resumed.ok).toBe(true);
    const r = await get(job.id);
    expect(r.status).toBe(200);
    const text = JSON.stringify(r.body);
    for (const hidden of ["w-secret-7", "staff.member@jobscope.example"]) expect(text).not.toContain(hidden);
    expect(r.body.events.map((e: { event: string; actorKind: string }) => [e.event, e.actorKind])).toEqual([
      ["submit", "api"],
      ["claim", "worker"],
      ["start", "worker"],
      ["pause", "operator"],
      ["resume", "operator"],
    ]);
    expect(r.body.events[0].actorId).toBe("test-api");
    expect(r.body.runs[0]).toMatchObject({ attempt: 1, workerId: "" });
  });

  it("another tenant's job is 404 exactly like a missing one, and cancelling it changes nothing", async () => {
    const before = await getJob(db.pool, globexJob.id);
    const events = await execute(db.pool, sql`SELECT count(*)::int AS n FROM job_events WHERE job_id = ${globexJob.id}`);
    const foreign = await get(globexJob.id);
    const missing = await get("00000000-0000-4000-8000-000000000000");
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    expect((await get("not-a-uuid")).body).toEqual(missing.body);

    const c = await cancel(globexJob.id);
    const cMissing = await cancel("00000000-0000-4000-8000-000000000000");
    expect(c.status).toBe(404);
    expect(c.body).toEqual(cMissing.body);
    expect(await getJob(db.pool, globexJob.id)).toEqual(before);
    expect(await execute(db.pool, sql`SELECT count(*)::int AS n FROM job_events WHERE job_id = ${globexJob.id}`)).toEqual(events);
    const audit = (await auditRows(`api-key:${acme.key.prefix}`)).filter((a) => a.jobIds.includes(globexJob.id));
    expect(audit).toEqual([expect.objectContaining({ action: "job.cancel", outcome: "refused", tenantId: "acme" })]);
  });

  it("cancels the tenant's job, audited in the same transaction; a second cancel is 409 illegal", async () => {
    const job = (await submit(REPORT)).body;
    const r = await cancel(job.id);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ from: "queued", job: { id: job.id, state: "cancelled", stateVersion: 1 } });
    const [event] = await execute(db.pool, sql`SELECT actor_kind, actor_id FROM job_events WHERE job_id = ${job.id} AND event = 'cancel'`);
    expect(event).toEqual({ actorKind: "tenant", actorId: `api-key:${acme.key.prefix}` });
    const again = await cancel(job.id, {});
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: "illegal", current: { state: "cancelled", stateVersion: 1 } });
    const audit = (await auditRows(`api-key:${acme.key.prefix}`)).filter((a) => a.jobIds.includes(job.id));
    expect(audit.map((a) => [a.action, a.outcome])).toEqual([
      ["job.submit", "applied"],
      ["job.cancel", "applied"],
      ["job.cancel", "refused"],
    ]);
    expect(audit.every((a) => a.via === "api" && a.role === "tenant" && a.tenantId === "acme")).toBe(true);
  });

  it("a stale expected version is a 409 conflict and changes nothing; a running job goes to cancelling", async () => {
    const job = await newJob(db.pool, { tenantId: "acme" });
    const running = await runJob(db.pool, job);
    const stale = await cancel(job.id, { expectedState: "queued", expectedVersion: 0 });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: "conflict", current: { state: "running", stateVersion: running.stateVersion } });
    expect(stale.body.error.message).toMatch(/Nothing was changed/);
    expect((await getJob(db.pool, job.id)).stateVersion).toBe(running.stateVersion);
    const half = await cancel(job.id, { expectedVersion: 2 });
    expect(half).toMatchObject({ status: 400, body: { error: { code: "invalid_input" } } });
    expect((await cancel(job.id, { state: "cancelled" })).status).toBe(400);
    const applied = await cancel(job.id, { expectedState: "running", expectedVersion: running.stateVersion });
    expect(applied.body).toMatchObject({ from: "running", job: { state: "cancelling" } });
  });

  it("a cancel without a valid key is 401, audited as denied, and changes nothing", async () => {
    const job = (await submit(REPORT)).body;
    const r = await routes.cancel.POST(call(`/jobs/${job.id}/cancel`, { method: "POST", secret: null }), params(job.id)).then(json);
    expect(r.status).toBe(401);
    expect((await getJob(db.pool, job.id)).state).toBe("queued");
    const [denied] = await execute(db.pool, sql`SELECT outcome, actor FROM audit_log WHERE action = 'job.cancel' AND actor = 'anonymous'`);
    expect(denied).toEqual({ outcome: "denied", actor: "anonymous" });
  });
});

describe("rate limit and errors", () => {
  it("a token bucket: a burst, then one request per refill interval, with the wait in seconds", () => {
    let t = 0;
    const limiter = new RateLimiter({ perMinute: 60, burst: 3 }, () => t);
    expect([1, 2, 3].map(() => limiter.take("k").ok)).toEqual([true, true, true]);
    expect(limiter.take("k")).toEqual({ ok: false, retryAfterSeconds: 1 });
    expect(limiter.take("other").ok).toBe(true);
    t += 1000;
    expect(limiter.take("k").ok).toBe(true);
    expect(limiter.take("k").ok).toBe(false);
    t += 60_000;
    expect([1, 2, 3, 4].map(() => limiter.take("k").ok)).toEqual([true, true, true, false]);
  });

  it("a key over its limit gets 429 with Retry-After; another key is unaffected", async () => {
    const limiter = new RateLimiter({ perMinute: 6, burst: 2 });
    const handle = (secret: string) => withApiKey(call("/jobs", { secret }), null, async () => ok({ fine: true }), { limiter, db: app });
    expect((await handle(acme.secret)).status).toBe(200);
    expect((await handle(acme.secret)).status).toBe(200);
    const limited = await json(await handle(acme.secret));
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBe(10);
    expect((await handle(globex.secret)).status).toBe(200);
  });

  it("the limit is the tenant's, not the key's: a second key of the same tenant does not widen it", async () => {
    const limiter = new RateLimiter({ perMinute: 6, burst: 2 });
    const second = await createApiKey(app, { tenantId: "acme", name: "second" }, ADMIN);
    const handle = (secret: string) => withApiKey(call("/jobs", { secret }), null, async () => ok({ fine: true }), { limiter, db: app });
    expect((await handle(acme.secret)).status).toBe(200);
    expect((await handle(acme.secret)).status).toBe(200);
    expect((await handle(second.secret)).status).toBe(429);
    expect((await handle(globex.secret)).status).toBe(200);
  });

  it("a tenant has at most JOBSCOPE_API_KEYS_PER_TENANT live keys, even when created at once; revoking one makes room", async () => {
    process.env.JOBSCOPE_API_KEYS_PER_TENANT = "4";
    try {
      await execute(db.pool, sql`INSERT INTO tenants (id, name) VALUES ('keyring', 'Keyring') ON CONFLICT DO NOTHING`);
      const others = db.connect({ role: "app", max: 6 });
      // Six at once, on six connections: the count and the insert must not race.
      const tries = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          createApiKey(others, { tenantId: "keyring", name: `k${i}` }, ADMIN).then(
            (k) => k,
            (e: unknown) => e,
          ),
        ),
      );
      await closeDb(others);
      const made = tries.filter((t): t is Awaited<ReturnType<typeof createApiKey>> => typeof t === "object" && t !== null && "secret" in t);
      expect(made).toHaveLength(4);
      expect(tries.filter((t) => !made.includes(t as never))).toEqual([
        expect.objectContaining({ code: "refused", message: expect.stringContaining("at most 4") }),
        expect.anything(),
      ]);
      const live = await execute(db.pool, sql`SELECT count(*)::int AS n FROM api_keys WHERE tenant_id = 'keyring' AND revoked_at IS NULL`);
      expect(live[0]!.n).toBe(4);
      await revokeApiKey(app, { id: made[0]!.key.id, tenantId: "keyring" }, ADMIN);
      expect((await createApiKey(app, { tenantId: "keyring", name: "after" }, ADMIN)).key.name).toBe("after");
    } finally {
      delete process.env.JOBSCOPE_API_KEYS_PER_TENANT;
    }
  });

  it("a failure inside a handler is answered as internal, without its message", async () => {
    const r = await json(
      await withApiKey(
        call("/jobs", {}),
        null,
        async () => {
          throw new Error('relation "secret_table" does not exist (password=hunter2)');
        },
        { db: app },
      ),
    );
    expect(r).toMatchObject({ status: 500, body: { error: { code: "internal" } } });
    expect(JSON.stringify(r.body)).not.toMatch(/secret_table|hunter2/);
    // A failed action is still in the audit log, as an error.
    await withApiKey(
      call("/jobs", { body: REPORT }),
      "job.submit",
      async () => {
        throw new Error("boom");
      },
      { db: app },
    );
    const [last] = (await auditRows(`api-key:${acme.key.prefix}`)).slice(-1);
    expect(last).toMatchObject({ action: "job.submit", outcome: "error" });
  });

  it("serves an OpenAPI 3.1 document of every endpoint, without a key", async () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document walked by path in assertions; no OpenAPI types are installed
    const doc = (await routes.openapi.GET().json()) as any;
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual(["/api/v1/jobs", "/api/v1/jobs/{id}", "/api/v1/jobs/{id}/cancel", "/api/v1/openapi.json"]);
    expect(doc.components.schemas.SubmitJob.oneOf.map((v: { title: string }) => v.title)).toContain("report.generate");
    expect(doc.components.schemas.SubmitJob.oneOf[0].additionalProperties).toBe(false);
    expect(doc.components.schemas.SubmitJob.oneOf[0].properties).not.toHaveProperty("tenantId");
    expect(doc.paths["/api/v1/jobs"].get.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(["state", "type", "queue", "createdFrom", "createdTo", "after", "before", "limit"]),
    );
  });
});
