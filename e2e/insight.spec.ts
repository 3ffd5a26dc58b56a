import { SIGNED_OUT, signInAs } from "./auth";
import { expect, expectSoon, HELD_QUEUE, OPERATOR, shot, test } from "./fixtures";
import { transition } from "../lib/jobs/transition";
import { shortId } from "../lib/jobs/short-id";
import { sql } from "drizzle-orm";
import { execute } from "../lib/db/drizzle";

// Each test signs in as the role it is about.
test.use({ storageState: SIGNED_OUT });

const MIN = 60_000;

test.describe("insight", () => {
  // Polled pages on a shared two-core machine: generous limits, the assertions stay exact.
  test.describe.configure({ timeout: 120_000 });
  test("the seeded slow export names retry backoff and the lost lease, for support and for its tenant", async ({ page, db }) => {
    const [job] = await execute<{ id: string }>(db, sql`SELECT id FROM jobs WHERE tenant_id = 'acme' AND idempotency_key = 'demo-slow-export'`);
    expect(job).toBeTruthy();
    for (const who of ["support", "acme"] as const) {
      await page.context().clearCookies();
      await signInAs(page, who, `/jobs/${job!.id}`);
      await page.goto(`/jobs/${job!.id}`);
      const section = page.getByRole("region", { name: "Why was this slow" });
      const summary = section.locator("#why-slow-summary");
      // The lost attempt is named (as the cause or beside it), in each reader's words.
      if (who === "support") {
        await expectSoon(summary).toContainText("Attempt 1 was lost when worker w-14 went silent");
        await expectSoon(section.getByRole("img", { name: /^Where the time went: .*retry backoff 1h/ })).toBeVisible();
      } else {
        await expectSoon(summary).toContainText("Its first try was interrupted when the machine running it stopped responding");
        await expect(summary).not.toContainText(/lease|worker|p95/);
        await expectSoon(section.getByRole("img", { name: /^Where the time went: .*waiting to retry 1h/ })).toBeVisible();
      }
      // The comparison with jobs of its type that succeeded before it was submitted (the tenant's own only, for the tenant).
      await expectSoon(section.getByText(/Against jobs of its type that succeeded in the 7 days before it was submitted/)).toBeVisible();
      if (who === "acme") await expectSoon(section.getByText(/every tenant/)).toHaveCount(0);
      else await expectSoon(section.getByText(/every tenant: \d+/).first()).toBeVisible();
      await shot(page, `why-slow-${who}`);
    }
  });

  test("the overview charts render with data", async ({ page }) => {
    await signInAs(page, "operator", "/");
    await page.goto("/");
    await page.getByRole("button", { name: "24h" }).click();
    const throughput = page.getByRole("region", { name: "Throughput and failure rate" });
    await expectSoon(throughput.locator(".recharts-bar-rectangle").first()).toBeVisible();
    expect(await throughput.locator(".recharts-bar-rectangle").count()).toBeGreaterThan(5);
    for (const name of ["Queue wait by type", "Run time by type", "Busiest error classes"]) {
      await expectSoon(page.getByRole("region", { name }).locator(".recharts-bar-rectangle").first()).toBeVisible();
    }
    await expectSoon(page.getByRole("region", { name: "Busiest error classes" })).toContainText("UpstreamTimeout");
    await shot(page, "overview");
  });

  test("a poison job is flagged: in the overview, with its crashes and the workers that died on it, and in the jobs list", async ({
    page,
    history,
  }) => {
    const h = await history(30 * MIN).submit(
      { tenantId: "globex", type: "poison.crash", params: {}, queue: HELD_QUEUE },
      { kind: "api", id: "e2e-spec" },
    );
    await h.run("w-e2e-poison-1", 1000);
    await h.loseLease(2000);
    await h.run("w-e2e-poison-2", 1000);
    await h.loseLease(2000);
    await signInAs(page, "operator", "/");
    await page.goto("/");
    const poison = page.getByRole("list", { name: "Poison suspects" });
    const item = poison.getByRole("listitem").filter({ hasText: shortId(h.id) });
    await expectSoon(item).toContainText("2 crashes");
    await expectSoon(item).toContainText("w-e2e-poison-1");
    await expectSoon(item).toContainText("w-e2e-poison-2");

    await page.goto("/jobs?poison=1");
    const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: shortId(h.id) }) });
    await expectSoon(row.getByText("poison", { exact: true })).toBeVisible();
    // Only poison suspects are listed: every row carries the badge.
    const rows = page.locator("tbody tr");
    expect(await rows.count()).toBeGreaterThan(0);
    expect(await rows.count()).toBe(await rows.filter({ has: page.getByText("poison", { exact: true }) }).count());
    await shot(page, "jobs-poison");
  });

  test("workers, rejections and the state machine pages answer for support", async ({ page }) => {
    await signInAs(page, "support", "/workers");
    await page.goto("/workers");
    await expectSoon(page.getByRole("heading", { level: 1, name: "Workers" })).toBeVisible();
    // The e2e server runs a worker (scripts/start.ts): it is live.
    await expectSoon(page.getByRole("row", { name: /: live$/ }).first()).toBeVisible();
    // Support reads; only operators may ask a worker to drain.
    await expect(page.getByRole("button", { name: /^Drain worker / })).toHaveCount(0);
    await shot(page, "workers");
    await page.goto("/state-machine?window=6h");
    await expectSoon(page.getByRole("img", { name: /^State diagram: \d+ transitions/ })).toBeVisible();
    const claims = await page.getByRole("row", { name: /^queued claim claimed: \d+$/ }).getAttribute("aria-label");
    expect(Number(/(\d+)$/.exec(claims ?? "")?.[1])).toBeGreaterThan(0);
    await shot(page, "state-machine");
  });

  test("an operator asks a worker to drain: it stops as on SIGTERM (npm start starts another), and the request is audited", async ({ page, db }) => {
    await signInAs(page, "operator", "/workers");
    await page.goto("/workers");
    const drain = page.getByRole("button", { name: /^Drain worker / }).first();
    await expectSoon(drain).toBeVisible();
    const id = (await drain.getAttribute("aria-label"))!.replace("Drain worker ", "");
    await drain.click();
    const dialog = page.getByRole("dialog", { name: `Drain worker ${id}?` });
    await expect(dialog.getByRole("button", { name: "Go back" })).toBeFocused();
    await dialog.getByRole("button", { name: "Drain it" }).click();
    await expect(page.getByRole("status").filter({ hasText: `Asked worker ${id} to drain` })).toBeVisible();
    // The worker reads the request with its heartbeat, drains and says it stopped.
    await expectSoon(page.getByRole("row", { name: `worker ${id}: stopped` })).toContainText("drained at operator@jobscope.local's request");
    const [row] = await execute<{ drainRequestedBy: string | null; stoppedAt: Date | null }>(
      db,
      sql`SELECT drain_requested_by, stopped_at FROM workers WHERE id = ${id}`,
    );
    expect(row).toMatchObject({ drainRequestedBy: "operator@jobscope.local", stoppedAt: expect.any(Date) });
    const [audit] = await execute<{ actor: string; outcome: string }>(
      db,
      sql`SELECT actor, outcome FROM audit_log WHERE action = 'worker.drain' ORDER BY id DESC LIMIT 1`,
    );
    expect(audit).toMatchObject({ actor: "operator@jobscope.local", outcome: "applied" });
    // npm start keeps its workers: a fresh one takes the drained one's place.
    await expectSoon(page.getByRole("row", { name: /: live$/ }).first()).toBeVisible();
  });

  test("a drift raises the alarm on every page, and the rejections page lists it", async ({ page, db, submit }) => {
    const job = await submit({ tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" }, queue: HELD_QUEUE });
    // Someone "fixes" the row by hand as a superuser, around the write path: the state moves, the version does not.
    // Its retry is an hour away, so the supervisor does not promote it (a new version) before the cancel below.
    await db.transaction(async (tx) => {
      await execute(tx, sql`SET LOCAL session_replication_role = replica`);
      await execute(tx, sql`UPDATE jobs_live SET state = 'retry_wait', not_before = now() + interval '1 hour' WHERE id = ${job.id}`);
    });
    // The next transition that expected the row as it was is refused as drift.
    const r = await transition(db, { jobId: job.id, event: "cancel", actor: OPERATOR, expected: { state: "queued", version: 0 } });
    expect(r).toMatchObject({ ok: false, kind: "drift" });

    await signInAs(page, "support", "/jobs");
    for (const path of ["/jobs", "/state-machine", `/jobs/${job.id}`]) {
      await page.goto(path);
      const alarm = page.getByRole("alert", { name: "Drift alarm" });
      await expectSoon(alarm).toContainText("written outside the write path");
    }
    await page.getByRole("link", { name: "See drift rejections →" }).click();
    await expectSoon(page).toHaveURL(/\/rejections\?kind=drift/);
    await expectSoon(
      page
        .getByRole("table", { name: "Rejections" })
        .getByRole("row")
        .filter({ hasText: shortId(job.id) }),
    ).toContainText("drift");
    await shot(page, "rejections");
  });
});
