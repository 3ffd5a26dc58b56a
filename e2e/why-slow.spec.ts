import { SIGNED_OUT, signInAs } from "./auth";
import { expect, expectSoon, shot, SPEC_ACTOR, test } from "./fixtures";
import { sql } from "drizzle-orm";
import { execute } from "../lib/db/drizzle";

// The "why was this slow" panel names the cause, for support and in a tenant's words.
test.use({ storageState: SIGNED_OUT });

const MIN = 60_000;
/** What a tenant must never read in the panel. */
const INTERNAL = /lease|claimed|p95|p50|heartbeat|w-e2e|@jobscope|supervisor|not_before/i;
const REPORT = { type: "report.generate", params: { report: "daily_usage", period: "2026-11" } } as const;

test.describe("why was this slow", () => {
  test.describe.configure({ timeout: 120_000 });

  test("a lost attempt, jobs ahead from two customers, a dead job: support sees the cause, the tenant the same cause in its words", async ({
    page,
    db,
    history,
  }) => {
    const queue = `e2e-why-${Date.now()}`;
    const aheadQueue = `${queue}-ahead`;
    // Lost: its first worker went silent 20 min into the attempt; the supervisor noticed 20 min later.
    const h = await history(80 * MIN).submit({ tenantId: "acme", ...REPORT, queue }, SPEC_ACTOR);
    await h.run("w-e2e-why-1", 5 * MIN);
    await execute(
      db,
      sql`INSERT INTO workers (id, host, pid, queues, concurrency, started_at, last_seen_at)
             VALUES ('w-e2e-why-1', 'e2e', 1, ${sql.param([queue])}, 1, ${new Date(Date.now() - 100 * MIN)}, ${new Date(Date.now() - 55 * MIN)})
             ON CONFLICT (id) DO NOTHING`,
    );
    await h.loseLease(40 * MIN, 0);
    await (await h.run("w-e2e-why-2", MIN)).step("finish", 5 * MIN);
    // Ahead: two of acme's and three of globex's jobs wait in front of it (no worker serves the queue).
    for (const tenantId of ["acme", "acme", "globex", "globex", "globex"])
      await history(90 * MIN).submit({ tenantId, ...REPORT, queue: aheadQueue }, SPEC_ACTOR);
    const behind = await history(80 * MIN).submit({ tenantId: "acme", ...REPORT, queue: aheadQueue }, SPEC_ACTOR);
    await (await behind.run("w-e2e-why-4", 60 * MIN)).step("finish", 2 * MIN);

    const dead = await history(30 * MIN).submit({ tenantId: "acme", ...REPORT, queue }, SPEC_ACTOR);
    await dead.run("w-e2e-why-3", MIN);
    await dead.step("abandon", MIN, undefined, { error: { class: "PermanentError", message: "report daily_usage is gone" } });

    for (const who of ["support", "acme"] as const) {
      await page.context().clearCookies();
      await signInAs(page, who, `/jobs/${h.id}`);
      // The first paint (the server's HTML) already has the final cause: it does not change a second later.
      const html = await (await page.request.get(`/jobs/${h.id}`)).text();
      expect(html).toContain('data-cause="lost_attempt"');
      await page.goto(`/jobs/${h.id}`);
      const section = page.getByRole("region", { name: "Why was this slow" });
      const summary = section.locator("#why-slow-summary");
      await expectSoon(summary).toHaveAttribute("data-cause", "lost_attempt");
      if (who === "support") {
        await expectSoon(summary).toContainText("Slow because work was lost with a worker that went silent");
        await expectSoon(summary).toContainText("Attempt 1 was lost when worker w-e2e-why-1 went silent at");
        await expectSoon(summary).toContainText("(its last heartbeat)");
        await expectSoon(section.getByRole("columnheader", { name: "Worker" })).toBeVisible();
      } else {
        await expectSoon(summary).toContainText("Slow because a try was interrupted and had to start again");
        await expectSoon(summary).toContainText("Its first try was interrupted when the machine running it stopped responding at");
        await expect(section.getByRole("columnheader", { name: "Worker" })).toHaveCount(0);
        expect(await section.innerText()).not.toMatch(INTERNAL);
      }
      await shot(page, `why-slow-lost-${who}`);

      await page.goto(`/jobs/${behind.id}`);
      const waited = page.getByRole("region", { name: "Why was this slow" }).locator("#why-slow-summary");
      await expectSoon(waited).toHaveAttribute("data-cause", "jobs_ahead");
      await expectSoon(waited).toContainText("5 jobs were waiting ahead of it when it was submitted");
      // Staff see how many were the tenant's own; a tenant never reads how many were other customers'.
      if (who === "support") await expectSoon(waited).toContainText("(2 of them its tenant's)");
      else {
        expect(await waited.innerText()).not.toMatch(INTERNAL);
        expect(await waited.innerText()).not.toMatch(/other customers|yours|tenant/);
      }
      await shot(page, `why-slow-ahead-${who}`);

      await page.goto(`/jobs/${dead.id}`);
      const failed = page.getByRole("region", { name: "Why it failed" });
      await expectSoon(failed.locator("#why-slow-summary")).toContainText(
        `It failed once (permanent error); the last (${who === "support" ? "attempt" : "try"} 1 of 3) ended with an error that a retry cannot fix, so it was not retried: PermanentError: report daily_usage is gone.`,
      );
      await expectSoon(failed.locator("#why-slow-next")).toContainText(who === "support" ? "An operator can replay it" : "Contact support");
      if (who === "acme") expect(await failed.innerText()).not.toMatch(INTERNAL);
      await shot(page, `why-slow-dead-${who}`);
    }
  });
});
