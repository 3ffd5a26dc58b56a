import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, connect } from "../db/client";
import { setupTestDb } from "../db/test-db";
import { enqueue } from "../jobs/enqueue";
import { api, getJob, newJob, operator, runAndEnd, runJob } from "../jobs/test-helpers";
import { transition } from "../jobs/transition";
import { createSupervisor } from "../supervisor/supervisor";
import { silentLogger } from "../worker/log";
import { waitFor, waitForNextMillisecond } from "../db/test-wait";
import type { Worker } from "../worker/types";
import { createWorker } from "../worker/worker";
import { evaluateAlerts } from "./evaluate";
import { AppError } from "../result";
import { createAlertRule, listAlertDeliveries, listAlertRules } from "./rules";
import { sign, SIGNATURE_HEADER, verify } from "./signature";
import { destinationPolicy, refusedAddress } from "./destination";
import { alertHandlers, type WebhookBody } from "./webhook";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

type Received = { headers: IncomingHttpHeaders; body: string };

/** A local webhook receiver: answers `failFirst` requests with 500 (and words of its own), then 204. */
async function receiver(failFirst = 0) {
  const got: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      got.push({ headers: req.headers, body });
      if (got.length <= failFirst) res.writeHead(500).end("receiver down: internal build 7.3, db=10.1.2.3");
      else res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, got, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const t = setupTestDb({ max: 12 });
let w: Worker;
const sup = () => createSupervisor({ db: t.pool, staleAfterMs: 60_000, metricsEveryMs: 0, alertsEveryMs: 0 });
const STAFF = { staff: true } as const;
const dies = async (queue: string, tenantId = "acme") => {
  const job = await newJob(t.pool, { tenantId, queue });
  await runAndEnd(t.pool, job, "abandon", { error: { class: "PermanentError", message: `bad input in ${queue}` } });
  return job.id;
};
/** Evaluate the rules, and promote due retries (a failed delivery's next attempt) until `until` holds. */
async function deliverUntil(what: string, until: () => boolean | Promise<boolean>) {
  const s = sup();
  return waitFor(
    what,
    async () => {
      await evaluateAlerts(t.pool, { settleMs: 0 });
      await s.tick();
      return until();
    },
    20_000,
  );
}

beforeAll(async () => {
  // The worker's delivery retries are fast here: 20 ms, 40 ms, …
  w = createWorker({
    db: t.pool,
    queues: ["jobscope.alerts"],
    concurrency: 2,
    heartbeatIntervalMs: 100,
    pollIntervalMs: 50,
    log: silentLogger,
    handlers: alertHandlers(t.pool, { retry: { baseMs: 20, capMs: 100, jitter: 0 } }),
  });
  await w.start();
});
afterAll(async () => {
  await w?.stop();
});

describe("alerts", () => {
  it("a rule on dead jobs delivers a signed webhook, once, through a jobscope.webhook job", async () => {
    const hook = await receiver();
    try {
      const { rule, secret } = await createAlertRule(
        t.pool,
        { kind: "job_dead", name: "dead in a-dead", url: hook.url, queue: "a-dead" },
        STAFF,
        "op@x",
      );
      await dies("a-other"); // another queue: not this rule's
      const dead = await dies("a-dead");
      await waitForNextMillisecond(t.pool);
      // As the supervisor runs it: the worker role, row-level security on.
      const asWorker = connect(t.roleUrl("worker"), { max: 2 });
      try {
        expect(await evaluateAlerts(asWorker, { settleMs: 0 })).toMatchObject({ alerts: 1 });
        expect((await evaluateAlerts(asWorker, { settleMs: 0 })).alerts).toBe(0);
      } finally {
        await closeDb(asWorker);
      }
      await waitFor("the webhook", () => hook.got.length >= 1);
      const [req] = hook.got;
      expect(req!.headers["content-type"]).toBe("application/json");
      expect(verify(secret, req!.headers[SIGNATURE_HEADER] as string, req!.body)).toMatchObject({ ok: true });
      expect(verify("whsec_wrong", req!.headers[SIGNATURE_HEADER] as string, req!.body)).toMatchObject({ ok: false });
      expect(verify(secret, req!.headers[SIGNATURE_HEADER] as string, req!.body.replace("a-dead", "a-deaf"))).toMatchObject({ ok: false });
      const body = JSON.parse(req!.body) as WebhookBody;
      expect(body.rule).toEqual({ id: rule.id, name: "dead in a-dead", kind: "job_dead" });
      expect(body.data).toMatchObject({ status: "firing", total: 1, jobs: [{ jobId: dead, queue: "a-dead", errorClass: "PermanentError" }] });
      const delivery = await waitFor("the delivery to succeed", async () => {
        const [x] = (await listAlertDeliveries(t.pool)).filter((d) => d.ruleId === rule.id);
        return x?.state === "succeeded" ? x : null;
      });
      expect(delivery).toMatchObject({ state: "succeeded", attempt: 1 });
      expect((await getJob(t.pool, delivery!.jobId!)).tenantId).toBe("jobscope");
    } finally {
      await hook.close();
    }
  });

  it("a failing receiver gets retries with backoff, each attempt visible in the delivery history", async () => {
    const hook = await receiver(2);
    try {
      const { rule } = await createAlertRule(t.pool, { kind: "job_dead", name: "flaky receiver", url: hook.url, queue: "a-flaky" }, STAFF, "op@x");
      await dies("a-flaky");
      await waitForNextMillisecond(t.pool);
      await deliverUntil("three deliveries", () => hook.got.length >= 3);
      const d = await waitFor("the delivery to succeed", async () => {
        const [x] = (await listAlertDeliveries(t.pool)).filter((y) => y.ruleId === rule.id);
        return x?.state === "succeeded" ? x : null;
      });
      expect(d.attempt).toBe(3);
      expect(d.attempts.map((a) => a.outcome)).toEqual(["failed", "failed", "succeeded"]);
      // Whether it worked, not what the receiver said.
      expect(d.attempts[0]!.error).toMatch(/^WebhookError: HTTP 500 from 127\.0\.0\.1:\d+$/);
      expect(hook.got.map((g) => g.headers["jobscope-delivery-attempt"])).toEqual(["1", "2", "3"]);
      // One alert, delivered three times under one event id.
      expect(new Set(hook.got.map((g) => g.headers["jobscope-event-id"])).size).toBe(1);
    } finally {
      await hook.close();
    }
  });

  it("a tenant's rule sees only its own dead jobs, and can be about nothing else", async () => {
    process.env.JOBSCOPE_ALERTS_ALLOW_PRIVATE = "1";
    const hook = await receiver();
    try {
      const { rule } = await createAlertRule(t.pool, { kind: "job_dead", name: "my dead jobs", url: hook.url }, { tenantId: "acme" }, "t@acme");
      await dies("a-tenant", "globex");
      await waitForNextMillisecond(t.pool);
      await evaluateAlerts(t.pool, { settleMs: 0 });
      const mine = await dies("a-tenant", "acme");
      await waitForNextMillisecond(t.pool);
      await evaluateAlerts(t.pool, { settleMs: 0 });
      // One delivery, recorded with the alert by the evaluation: globex's dead job made none.
      expect((await listAlertDeliveries(t.pool)).filter((d) => d.ruleId === rule.id)).toHaveLength(1);
      await waitFor("the tenant's webhook", () => hook.got.length >= 1);
      expect(hook.got).toHaveLength(1);
      const body = JSON.parse(hook.got[0]!.body) as WebhookBody;
      expect(body.tenantId).toBe("acme");
      expect((body.data.jobs as { jobId: string; tenantId: string }[]).map((j) => [j.jobId, j.tenantId])).toEqual([[mine, "acme"]]);
      const [delivery] = (await listAlertDeliveries(t.pool)).filter((d) => d.ruleId === rule.id);
      expect((await getJob(t.pool, delivery!.jobId!)).tenantId).toBe("acme");
    } finally {
      delete process.env.JOBSCOPE_ALERTS_ALLOW_PRIVATE;
      await hook.close();
    }
    const refused = (raw: unknown) =>
      createAlertRule(t.pool, raw, { tenantId: "acme" }, "t@acme").then(
        () => null,
        (e: unknown) => e,
      );
    const before = (await execute<{ n: number }>(t.pool, sql`SELECT count(*)::int AS n FROM alert_rules`))[0]!.n;
    expect(await refused({ kind: "drift_rejection", name: "x", url: "https://hooks.example.com/x" })).toMatchObject({ code: "forbidden" });
    expect(await refused({ kind: "job_dead", name: "x", url: "http://127.0.0.1:9/x" })).toMatchObject({
      code: "invalid_input",
      message: /internal address/,
    });
    expect(await refused({ kind: "job_dead", name: "x", url: "http://169.254.169.254/latest" })).toMatchObject({ code: "invalid_input" });
    expect(await refused({ kind: "job_dead", name: "x", url: "ftp://hooks.example.com/x" })).toBeInstanceOf(AppError);
    expect(await refused({ kind: "job_dead", name: "", url: "https://hooks.example.com/x" })).toMatchObject({
      code: "invalid_input",
      message: /^name/,
    });
    expect(await refused({ kind: "job_dead", name: "x", url: "https://hooks.example.com/x", extra: 1 })).toMatchObject({ code: "invalid_input" });
    expect((await execute<{ n: number }>(t.pool, sql`SELECT count(*)::int AS n FROM alert_rules`))[0]!.n).toBe(before);
    // The database holds the line too.
    await expect(
      execute(
        t.pool,
        sql`INSERT INTO alert_rules (name, kind, tenant_id, url, secret, created_by, updated_by) VALUES ('x', 'drift_rejection', 'acme', 'https://x', 's', 'x', 'x')`,
      ),
    ).rejects.toThrow(/alert_rules_tenant_dead_only/);
  });

  it("a threshold rule alerts when its condition starts to hold and when it stops, not on every pass", async () => {
    const hook = await receiver();
    try {
      await createAlertRule(
        t.pool,
        { kind: "queue_oldest_due", name: "a-late waits", url: hook.url, queue: "a-late", thresholdSeconds: 30 },
        STAFF,
        "op@x",
      );
      expect((await evaluateAlerts(t.pool, { settleMs: 0 })).alerts).toBe(0);
      const job = await newJob(t.pool, { queue: "a-late", notBefore: new Date(Date.now() - 120_000) });
      expect((await evaluateAlerts(t.pool, { settleMs: 0 })).alerts).toBe(1);
      expect((await evaluateAlerts(t.pool, { settleMs: 0 })).alerts).toBe(0);
      expect((await transition(t.pool, { jobId: job.id, event: "cancel", actor: operator })).ok).toBe(true);
      expect((await evaluateAlerts(t.pool, { settleMs: 0 })).alerts).toBe(1);
      await waitFor("two webhooks", () => hook.got.length >= 2);
      expect(hook.got.map((g) => (JSON.parse(g.body) as WebhookBody).data.status).sort()).toEqual(["firing", "resolved"]);
    } finally {
      await hook.close();
    }
  });

  it("a failure-rate rule fires over its threshold, judged on enough attempts", async () => {
    const hook = await receiver();
    try {
      await createAlertRule(
        t.pool,
        { kind: "type_failure_rate", name: "renders fail", url: hook.url, type: "media.render", thresholdPercent: 30, windowMinutes: 5 },
        STAFF,
        "op@x",
      );
      const attempt = async (fail: boolean) => {
        const { job } = await enqueue(
          t.pool,
          { tenantId: "acme", type: "media.render", params: { assetId: "a", frames: 1 }, queue: "a-render" },
          api,
        );
        const oom = { error: { class: "OutOfMemoryError", message: "oom" }, retryAt: new Date(Date.now() + 3_600_000) };
        await runAndEnd(t.pool, job, fail ? "fail" : "finish", fail ? oom : {});
      };
      for (let i = 0; i < 4; i++) await attempt(true);
      // 4 of 4 failed, but 4 attempts are too few to judge.
      expect((await evaluateAlerts(t.pool, { settleMs: 0 })).alerts).toBe(0);
      for (let i = 0; i < 6; i++) await attempt(false);
      expect((await evaluateAlerts(t.pool, { settleMs: 0 })).alerts).toBe(1);
      expect((await evaluateAlerts(t.pool, { settleMs: 0 })).alerts).toBe(0);
      await waitFor("the webhook", () => hook.got.length >= 1);
      expect((JSON.parse(hook.got[0]!.body) as WebhookBody).data).toMatchObject({
        status: "firing",
        type: "media.render",
        attempts: 10,
        failed: 4,
        failurePercent: 40,
      });
    } finally {
      await hook.close();
    }
  });

  it("drift rejections and poison-job suspects each alert once", async () => {
    const hook = await receiver();
    try {
      await createAlertRule(t.pool, { kind: "drift_rejection", name: "drift", url: hook.url }, STAFF, "op@x");
      await createAlertRule(t.pool, { kind: "poison_suspect", name: "poison", url: hook.url }, STAFF, "op@x");
      const job = await newJob(t.pool, { queue: "a-poison", maxAttempts: 10 });
      // A drift, as the write path records one (something changed the row outside it).
      await execute(
        t.pool,
        sql`INSERT INTO transition_rejections (job_id, tenant_id, event, kind, actor_kind, actor_id, reason)
                  VALUES (${job.id}, 'acme', 'finish', 'drift', 'worker', 'w-1', 'state changed without a version bump')`,
      );
      // Two lost leases: the supervisor reclaims the job twice.
      const s = createSupervisor({ db: t.pool, staleAfterMs: 10_000, metricsEveryMs: 0, alertsEveryMs: 0 });
      for (const w of ["w-a", "w-b"]) {
        // The crash backoff of the first reclaim has passed.
        await execute(t.pool, sql`UPDATE jobs_live SET not_before = least(not_before, now()) WHERE id = ${job.id}`);
        await runJob(t.pool, await getJob(t.pool, job.id), w);
        await execute(t.pool, sql`UPDATE jobs_live SET heartbeat_at = now() - interval '1 minute' WHERE id = ${job.id}`);
        await s.tick();
      }
      await waitForNextMillisecond(t.pool);
      expect((await evaluateAlerts(t.pool, { settleMs: 0 })).alerts).toBe(2);
      expect((await evaluateAlerts(t.pool, { settleMs: 0 })).alerts).toBe(0);
      await waitFor("two webhooks", () => hook.got.length >= 2);
      const bodies = hook.got.map((g) => JSON.parse(g.body) as WebhookBody).sort((a, b) => a.rule.kind.localeCompare(b.rule.kind));
      expect(bodies.map((b) => b.rule.kind)).toEqual(["drift_rejection", "poison_suspect"]);
      expect(bodies[0]!.data).toMatchObject({ total: 1, rejections: [{ jobId: job.id, reason: "state changed without a version bump" }] });
      expect(bodies[1]!.data).toMatchObject({ total: 1, jobs: [{ jobId: job.id, crashes: 2 }] });
    } finally {
      await hook.close();
    }
  });

  it("signatures: the timestamp is signed and checked against a tolerance", () => {
    const at = new Date("2026-12-01T10:00:00Z");
    const header = sign("s", "{}", at);
    expect(header).toMatch(/^t=1796119200,v1=[0-9a-f]{64}$/);
    expect(verify("s", header, "{}", { now: at })).toMatchObject({ ok: true });
    expect(verify("s", header, "{}", { now: new Date(at.getTime() + 301_000) })).toMatchObject({ ok: false, reason: /tolerance/ });
    expect(verify("s", "t=1,v1=zz", "{}")).toMatchObject({ ok: false, reason: /malformed/ });
  });
});

describe("the alerts page's list of rules", () => {
  it("lists rules newest first as typed rows, without their secret or cursor", async () => {
    const first = await createAlertRule(t.pool, { kind: "drift_rejection", name: "list first", url: "https://hooks.example.com/a" }, STAFF, "op@x");
    const second = await createAlertRule(t.pool, { kind: "poison_suspect", name: "list second", url: "https://hooks.example.com/b" }, STAFF, "op@x");
    const rules = await listAlertRules(t.pool);
    const ids = rules.map((r) => r.id);
    expect(ids.indexOf(second.rule.id)).toBeLessThan(ids.indexOf(first.rule.id));
    const listed = rules.find((r) => r.id === second.rule.id)!;
    expect(listed).toEqual(second.rule);
    expect(listed).toMatchObject({ kind: "poison_suspect", tenantId: null, enabled: true, firing: false, createdBy: "op@x" });
    expect(listed.createdAt).toBeInstanceOf(Date);
    expect(Object.keys(listed)).not.toContain("secret");
    expect(Object.keys(listed)).not.toContain("cursorAt");
  });
});

describe("a tenant's webhook is decided per resolved address, at connect time", () => {
  const TENANT = { tenantId: "acme" } as const;
  const refused = (url: string) =>
    createAlertRule(t.pool, { kind: "job_dead", name: "x", url }, TENANT, "t@acme").then(
      () => null,
      (e: unknown) => e,
    );

  it("creation refuses every spelling of an internal address the old blocklist missed", async () => {
    for (const url of [
      "http://[::ffff:127.0.0.1]/x",
      "http://[::127.0.0.1]/x",
      "http://localhost./x",
      "http://LOCALHOST/x",
      "http://198.18.0.1/x",
      "http://0x7f.1/x",
      "http://2130706433/x",
      "http://[fd00::2]/x",
      "http://192.0.2.2/x",
      "http://[64:ff9b::a00:1]/x",
    ]) {
      expect(await refused(url), url).toMatchObject({ code: "invalid_input", message: expect.stringMatching(/^url: /) });
    }
    expect(await refused("https://hooks.example.com/x")).toBeNull();
  });

  it("the host's own networks are refused, an operator's allow-list is not; global addresses pass", () => {
    const interfaces = {
      eth0: [{ address: "8.8.4.10", netmask: "255.255.255.0", family: "IPv4", mac: "", internal: false, cidr: "8.8.4.10/24" }],
    } as never;
    const policy = destinationPolicy({ JOBSCOPE_WEBHOOK_ALLOWED_NETWORKS: "10.20.0.0/16, 127.0.0.7" }, interfaces);
    expect(refusedAddress("8.8.4.77", policy)).toMatch(/own networks/);
    expect(refusedAddress("8.8.8.8", policy)).toBeNull();
    expect(refusedAddress("10.20.3.4", policy)).toBeNull();
    expect(refusedAddress("10.21.3.4", policy)).toMatch(/private/);
    expect(refusedAddress("127.0.0.7", policy)).toBeNull();
    expect(refusedAddress("127.0.0.8", policy)).toMatch(/loopback/);
    expect(refusedAddress("::7f00:1", policy)).toMatch(/own networks|internal/);
  });

  it("a name that resolves inside is refused as the socket connects, for good, and the receiver hears nothing", async () => {
    const hook = await receiver();
    const port = new URL(hook.url).port;
    // hooks.acme.test resolves to this machine (a rebinding answer): only the lookup the socket uses can catch it.
    const resolve = ((_host: string, _opts: unknown, cb: (err: null, a: { address: string; family: number }[]) => void) =>
      cb(null, [{ address: "127.0.0.1", family: 4 }])) as never;
    // The handler as a worker runs it (the spec with its retry policy).
    const handler = alertHandlers(t.pool, { resolve })["jobscope.webhook"] as unknown as { run: (ctx: never) => Promise<unknown> };
    try {
      const { rule } = await createAlertRule(
        t.pool,
        { kind: "job_dead", name: "inside", url: `http://hooks.acme.test:${port}/hook` },
        TENANT,
        "t@acme",
      );
      const [event] = await execute<{ id: number }>(
        t.pool,
        sql`
        INSERT INTO alert_events (rule_id, tenant_id, summary, payload) VALUES (${rule.id}, 'acme', 'x', '{}') RETURNING id`,
      );
      const ctx = { job: { params: { eventId: Number(event!.id) } }, attempt: 1, signal: new AbortController().signal } as never;
      const err = await handler.run(ctx).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ name: "PermanentError", message: expect.stringMatching(/resolves to an internal address \(loopback\)/) });
      expect(hook.got).toEqual([]);
      // Allowed by the operator: delivered, to the address that was checked.
      process.env.JOBSCOPE_WEBHOOK_ALLOWED_NETWORKS = "127.0.0.1";
      expect(await handler.run(ctx)).toMatchObject({ status: 204 });
      expect(hook.got).toHaveLength(1);
    } finally {
      delete process.env.JOBSCOPE_WEBHOOK_ALLOWED_NETWORKS;
      await hook.close();
    }
  });
});
