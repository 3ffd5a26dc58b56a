import fc from "fast-check";
import type { APIRequestContext, Page } from "@playwright/test";
import { createApiKey } from "../lib/api/keys";
import type { Db } from "../lib/db/client";
import { expect, HELD_QUEUE, jobRow, test } from "./fixtures";
import { sql } from "drizzle-orm";
import { execute } from "../lib/db/drizzle";

// Bad input at every HTTP front door of the console: route handlers, server actions and
// the tenant API. Malformed ids, wrong types, huge and deeply nested params, NUL bytes,
// invalid UTF-8, unknown job types, tampered and replayed requests must get a clear 4xx
// (or a typed refusal inside a 200 server-action answer), never a 5xx, and write nothing.
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);

const NASTY = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "%00",
  "%ZZ",
  "%C0%AF",
  "\ud800",
  "'; DROP TABLE jobs; --",
  "../../etc/passwd",
  "<script>alert(1)</script>",
  "null",
  "undefined",
  "__proto__",
  "constructor",
  "-1",
  "1e309",
  "NaN",
  "0x10",
  "9".repeat(400),
  "x".repeat(10_000),
  "00000000-0000-0000-0000-000000000000",
  "00000000-0000-0000-0000-00000000000g",
  "ffffffff-ffff-ffff-ffff-ffffffffffff ",
];
const nasty = fc.oneof(fc.constantFrom(...NASTY), fc.string(), fc.string({ unit: "binary", maxLength: 50 }));
const nested = (depth: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};
const anything = fc.oneof(fc.jsonValue({ maxDepth: 3 }), nasty, fc.constantFrom(nested(3_000), [[[[[]]]]], { length: -1 }, 1e308, -0, true));

// What a request could write: jobs, transitions applied by a person or a key, applied actions, bulk
// operations. The e2e server's workers keep running the jobs other specs left queued or retrying,
// so a worker's or the supervisor's transitions (and the runs they open) are not counted.
async function counts(db: Db) {
  const [r] = await execute<{ jobs: number; events: number; applied: number; bulk: number }>(
    db,
    sql`
    SELECT (SELECT count(*) FROM jobs)::int AS jobs,
           (SELECT count(*) FROM job_events WHERE actor_kind IN ('api', 'tenant', 'operator'))::int AS events,
           (SELECT count(*) FROM audit_log WHERE outcome = 'applied')::int AS applied,
           (SELECT count(*) FROM bulk_operations)::int AS bulk`,
  );
  return r!;
}

const tally: Record<string, number> = {};
const seen = (status: number, what: string) => {
  const k = `${what}:${status}`;
  tally[k] = (tally[k] ?? 0) + 1;
};
test.afterAll(() => console.log(`FUZZ-HTTP ${JSON.stringify(tally)}`));

/** JSON error bodies read by expectClientError in the current test: each test says some were. */
let errorBodies = 0;
test.beforeEach(() => {
  errorBodies = 0;
});

/** Never a 5xx, and an error answer is JSON with a code and a message. */
async function expectClientError(res: Awaited<ReturnType<APIRequestContext["get"]>>, what: string, allowOk = false) {
  const status = res.status();
  seen(status, what);
  expect(status, `${what} answered ${status}: ${(await res.text()).slice(0, 300)}`).toBeLessThan(500);
  expect(status, what).toBeGreaterThanOrEqual(allowOk ? 200 : 400);
  // Which answers are errors is up to the fuzzed input: the count of bodies read is asserted per test.
  if (status >= 400 && (res.headers()["content-type"] ?? "").includes("json")) {
    errorBodies++;
    const body = (await res.json()) as { error?: { code?: string; message?: string } };
    expect(body.error?.code, what).toBeTruthy();
    expect(body.error?.message, what).toBeTruthy();
  }
}

test.describe("fuzzing the HTTP surface", () => {
  test("route handlers: malformed ids and query strings never crash and never write", async ({ request, db }) => {
    test.setTimeout(180_000);
    const before = await counts(db);
    await fc.assert(
      fc.asyncProperty(nasty, nasty, nasty, async (a, b, c) => {
        // Lone surrogates cannot be percent-encoded by a client; undecodable bytes are sent raw below.
        const enc = (x: string) => encodeURIComponent(x.replace(/[\ud800-\udfff]/g, "\ufffd"));
        const id = enc(a).slice(0, 2_000);
        await expectClientError(await request.get(`/api/jobs/${id || "x"}`), "GET /api/jobs/:id");
        await expectClientError(await request.get(`/api/bulk/${id || "x"}`), "GET /api/bulk/:id");
        const qs = new URLSearchParams({
          state: a,
          tenant: b,
          type: c,
          queue: a,
          cursor: b,
          after: c,
          q: a,
          worker: b,
          errorClass: c,
          from: a,
          to: b,
        }).toString();
        await expectClientError(await request.get(`/api/jobs?${qs.slice(0, 6_000)}`), "GET /api/jobs?…", true);
        await expectClientError(
          await request.get(
            `/api/dead?${new URLSearchParams({ type: a, errorClass: b, cursor: c, window: a, tenant: b }).toString().slice(0, 6_000)}`,
          ),
          "GET /api/dead?…",
          true,
        );
      }),
      { numRuns: RUNS },
    );
    // NUL bytes in the path, NUL bytes and invalid UTF-8 in the query.
    for (const raw of ["%00", "a%00b"]) {
      await expectClientError(await request.get(`/api/jobs/${raw}`), "GET /api/jobs/raw", false);
      await expectClientError(await request.get(`/api/jobs?state=${raw}&cursor=${raw}&q=${raw}`), "GET /api/jobs?raw", true);
    }
    for (const raw of ["%C0%AF", "%ED%A0%80", "%FF"]) {
      await expectClientError(await request.get(`/api/jobs?state=${raw}&cursor=${raw}&q=${raw}&tenant=${raw}`), "GET /api/jobs?raw", true);
      await expectClientError(await request.get(`/api/dead?type=${raw}&errorClass=${raw}`), "GET /api/dead?raw", true);
    }
    // A path that is not valid percent-encoded UTF-8 fails in Next's router before any route
    // handler runs (Next 16 answers 500 "Internal Server Error"; docs/reliability.md, known limits).
    for (const raw of ["%", "%ZZ", "%C0%AF", "%ED%A0%80"]) {
      const res = await request.get(`/api/jobs/${raw}`);
      seen(res.status(), "GET /api/jobs/undecodable (framework)");
      expect(res.status()).toBeGreaterThanOrEqual(400);
    }
    expect(await counts(db)).toEqual(before);
    expect(errorBodies).toBeGreaterThan(0);
  });

  test("server actions: fuzzed, tampered and unknown actions are refused with a reason, and nothing moves", async ({ page, db, submit }) => {
    test.setTimeout(180_000);
    const job = await submit({ tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" }, queue: HELD_QUEUE });
    const action = await captureAction(page, `/jobs/${job.id}`);
    const post = (body: string | Buffer, actionId = action.id) =>
      page.request.post(`/jobs/${job.id}`, { headers: { ...action.headers, "next-action": actionId }, data: body });
    const before = await counts(db);

    let refusedInBody = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          anything,
          fc.record({
            operation: fc.oneof(nasty, fc.constantFrom("cancel", "release", "submit", "claim", "finish")),
            selection: fc.oneof(
              anything,
              fc.record({ kind: fc.constant("ids"), ids: fc.array(fc.oneof(nasty, fc.constant(job.id)), { maxLength: 3 }) }),
            ),
            jobs: fc.oneof(anything, fc.array(fc.tuple(fc.oneof(nasty, fc.constant(job.id)), anything, anything), { maxLength: 3 })),
          }),
          fc.record(
            {
              operation: fc.constant("cancel"),
              selection: fc.constant({ kind: "ids", ids: [job.id] }),
              // The version the page saw is never right: the job is still at 0.
              jobs: fc.integer({ min: 1, max: 2 ** 31 }).map((v) => [[job.id, "queued", v]]),
              extra: anything,
            },
            { requiredKeys: ["operation", "selection", "jobs"] },
          ),
        ),
        async (arg) => {
          // Encoded as React's client encodes a server action's arguments: a string that starts
          // with "$" is escaped as "$$" (unescaped, "$B1" and friends are references into a
          // multipart body, which a hand-made request can make the framework trip over).
          const res = await post(JSON.stringify([arg], (_k, v: unknown) => (typeof v === "string" && v.startsWith("$") ? `$${v}` : v)));
          await expectClientError(res, "server action", true);
          const text = await res.text();
          if (res.status() === 200) {
            // Refused as an error, or answered as an operation whose every job was refused.
            if (/"ok":true/.test(text))
              expect(text, `applied ${JSON.stringify(arg).slice(0, 200)}`).toMatch(/"applied":0,.*"outcome":"(conflict|illegal|not_found)"/);
            else expect(text).toMatch(/invalid_input|forbidden|conflict|illegal|not_found/);
            refusedInBody++;
          }
        },
      ),
      { numRuns: RUNS * 2 },
    );
    // Not JSON, invalid UTF-8, NUL bytes, a huge body, deep nesting. A body that Next.js cannot
    // decode into arguments fails inside the framework, before any application code runs: Next 16
    // answers 500 for it (docs/reliability.md, known limits). Nothing may be applied either way.
    for (const body of [
      "{",
      "[",
      "\u0000",
      Buffer.from([0xff, 0xfe, 0xc0, 0xaf, 0xed, 0xa0, 0x80]),
      `[${"[".repeat(5_000)}${"]".repeat(5_000)}]`,
      JSON.stringify([{ jobId: "x".repeat(1_000_000) }]),
    ]) {
      const res = await post(body);
      seen(res.status(), "server action (raw body)");
      expect(await res.text()).not.toMatch(/"ok":true/);
    }
    // Tampered action id: an action that does not exist.
    await expectClientError(await post(JSON.stringify([{}]), "0".repeat(action.id.length)), "unknown server action", true);
    await expectClientError(await post(JSON.stringify([{}]), "not-an-action"), "unknown server action", true);
    // A replayed click: the page's (state, version) guard refuses the second one once the first applied.
    const click = JSON.stringify([{ operation: "cancel", selection: { kind: "ids", ids: [job.id] }, jobs: [[job.id, "queued", 0]] }]);
    const midCounts = await counts(db);
    expect(midCounts).toEqual(before);
    expect((await jobRow(db, job.id)).state).toBe("queued");
    expect(await (await post(click)).text()).toMatch(/"ok":true.*"applied":1/);
    expect(await (await post(click)).text()).toMatch(/"applied":0,.*"outcome":"conflict"/);
    expect(await jobRow(db, job.id)).toMatchObject({ state: "cancelled", stateVersion: 1 });
    expect(refusedInBody).toBeGreaterThan(0);
  });

  test("tenant API: bad keys, bodies and ids get a 4xx and create nothing; a replayed submit returns the same job", async ({ request, db }) => {
    test.setTimeout(180_000);
    const { secret } = await createApiKey(db, { tenantId: "acme", name: "fuzz" }, { userId: null, actor: "e2e-fuzz", role: "admin", tenantId: null });
    const auth = { authorization: `Bearer ${secret}` };
    const before = await counts(db);
    // Tampered and missing keys.
    const tampered = secret.slice(0, -1) + (secret.endsWith("a") ? "b" : "a");
    for (const h of [
      {},
      { authorization: `Bearer ${tampered}` },
      { authorization: "Bearer " },
      { authorization: `Basic ${secret}` },
      { authorization: `Bearer ${secret} ${secret}` },
      { authorization: `Bearer ${"jsk_".padEnd(5_000, "x")}` },
    ] as Record<string, string>[]) {
      await expectClientError(
        await request.post("/api/v1/jobs", { headers: h, data: { type: "report.generate", params: { report: "daily_usage", period: "2026-11" } } }),
        "POST /api/v1/jobs (bad key)",
      );
    }
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          anything,
          fc.record(
            {
              type: fc.oneof(nasty, fc.constantFrom("no.such.type", "poison.crash ", "REPORT.GENERATE")),
              params: anything,
              priority: anything,
              maxAttempts: anything,
              idempotencyKey: anything,
            },
            { requiredKeys: ["type"] },
          ),
          fc.record({
            type: fc.constant("report.generate"),
            params: fc.oneof(anything, fc.constant(nested(2_000)), fc.record({ report: nasty, period: nasty })),
          }),
        ),
        async (body) => {
          await expectClientError(
            await request.post("/api/v1/jobs", { headers: { ...auth, "content-type": "application/json" }, data: JSON.stringify(body) }),
            "POST /api/v1/jobs",
          );
        },
      ),
      { numRuns: RUNS * 2 },
    );
    for (const raw of ["{", "\u0000", Buffer.from([0xff, 0xfe, 0xc0, 0xaf]), "x".repeat(70_000), `${"[".repeat(10_000)}${"]".repeat(10_000)}`]) {
      await expectClientError(
        await request.post("/api/v1/jobs", { headers: { ...auth, "content-type": "application/json" }, data: raw }),
        "POST /api/v1/jobs (raw)",
      );
    }
    for (const id of ["x", "%00", "00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-fffffffffffff", "a".repeat(5_000)]) {
      await expectClientError(await request.get(`/api/v1/jobs/${id}`, { headers: auth }), "GET /api/v1/jobs/:id");
      await expectClientError(await request.post(`/api/v1/jobs/${id}/cancel`, { headers: auth, data: "{}" }), "POST /api/v1/jobs/:id/cancel");
    }
    await expectClientError(await request.get("/api/v1/jobs?limit=-1&cursor=%00&state=nope", { headers: auth }), "GET /api/v1/jobs?…", true);
    expect(await counts(db)).toEqual(before);
    expect(errorBodies).toBeGreaterThan(0);

    // A client retrying the same request with its idempotency key gets the same job, once. The ~70
    // requests above may have spent acme's rate-limit bucket (60 at once, 10 a second: a 429 there is
    // a right answer), so this runs on another tenant's key, whose bucket they did not touch.
    const { secret: globex } = await createApiKey(
      db,
      { tenantId: "globex", name: "fuzz-replay" },
      { userId: null, actor: "e2e-fuzz", role: "admin", tenantId: null },
    );
    const replayAuth = { authorization: `Bearer ${globex}` };
    const submit = { type: "report.generate", params: { report: "daily_usage", period: "2026-11" }, idempotencyKey: `fuzz-${Date.now()}` };
    const first = await request.post("/api/v1/jobs", { headers: replayAuth, data: submit });
    const again = await request.post("/api/v1/jobs", { headers: replayAuth, data: submit });
    expect(first.status()).toBeLessThan(300);
    expect(again.status()).toBeLessThan(300);
    const a = (await first.json()) as { job?: { id: string }; id?: string };
    const b = (await again.json()) as { job?: { id: string }; id?: string };
    expect(b.job?.id ?? b.id).toBe(a.job?.id ?? a.id);
    expect((await counts(db)).jobs).toBe(before.jobs + 1);
  });
});

/** Click Cancel on a job page and capture the server action's request instead of sending it. */
async function captureAction(page: Page, url: string): Promise<{ id: string; headers: Record<string, string> }> {
  let captured: { id: string; headers: Record<string, string> } | null = null;
  await page.route(url, async (route) => {
    const h = route.request().headers();
    if (route.request().method() === "POST" && h["next-action"]) {
      captured = {
        id: h["next-action"],
        headers: Object.fromEntries(
          Object.entries(h).filter(([k]) => ["next-action", "next-router-state-tree", "content-type", "accept", "origin"].includes(k)),
        ),
      };
      await route.abort();
    } else await route.continue();
  });
  await page.goto(url);
  await page.getByRole("button", { name: "Cancel", exact: true }).click();
  await page.getByRole("dialog", { name: "Cancel this job?" }).getByRole("button", { name: "Yes, cancel" }).click();
  await expect.poll(() => captured !== null).toBe(true);
  await page.unroute(url);
  return captured!;
}
