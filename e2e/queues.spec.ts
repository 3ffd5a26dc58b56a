import { randomUUID } from "node:crypto";
import type { Sql } from "../lib/db/client";
import { expect, test } from "./fixtures";

/** A queue the e2e server's worker consumes (playwright.config.ts starts it on exports, media, default). */
const QUEUE = "media";
const REPORT = { tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" } } as const;

async function stateOf(db: Sql, id: string): Promise<string | undefined> {
  const [j] = await db<{ state: string }[]>`SELECT state FROM jobs WHERE id = ${id}`;
  return j?.state;
}

async function setPaused(db: Sql, paused: boolean) {
  await db`INSERT INTO queues (name, paused) VALUES (${QUEUE}, ${paused}) ON CONFLICT (name) DO UPDATE SET paused = ${paused}`;
}

test.describe("queues and schedules in the console (issue 13)", () => {
  test.afterEach(async ({ db }) => {
    // Never leave the worker's queue paused for the specs that follow.
    await setPaused(db, false);
  });

  test("an operator pauses a queue in the browser: its new jobs wait; resumed, they run", async ({ page, db, submit }) => {
    await page.goto("/queues");
    const pause = page.getByRole("button", { name: `Pause queue ${QUEUE}` });
    await expect(pause).toBeVisible();
    await pause.click();
    await expect(page.getByRole("button", { name: `Resume queue ${QUEUE}` })).toBeVisible();
    const [q] = await db<{ paused: boolean }[]>`SELECT paused FROM queues WHERE name = ${QUEUE}`;
    expect(q?.paused).toBe(true);

    // A job submitted now stays queued while the worker, which serves this queue, keeps running.
    const job = await submit({ ...REPORT, queue: QUEUE });
    await page.waitForTimeout(3_000);
    expect(await stateOf(db, job.id)).toBe("queued");

    // The queue's jobs say why they wait.
    await page.goto(`/jobs?queue=${QUEUE}`);
    await expect(page.getByText(/paused/i).first()).toBeVisible();

    await page.goto("/queues");
    await page.getByRole("button", { name: `Resume queue ${QUEUE}` }).click();
    await expect(page.getByRole("button", { name: `Pause queue ${QUEUE}` })).toBeVisible();
    await expect.poll(() => stateOf(db, job.id), { timeout: 20_000 }).toBe("succeeded");

    // Both changes are in the audit log, by the signed-in operator.
    const audit = await db<{ action: string }[]>`
      SELECT action FROM audit_log WHERE action IN ('queue.pause', 'queue.resume') AND outcome = 'applied' ORDER BY id DESC LIMIT 2`;
    expect(audit.map((a) => a.action).sort()).toEqual(["queue.pause", "queue.resume"]);
  });

  test("the queues page pages and searches: 60 queues that sort first do not hide the others", async ({ page, submit }) => {
    for (let i = 0; i < 60; i++) await submit({ ...REPORT, queue: `0e2e-${String(i).padStart(2, "0")}` });
    await page.goto("/queues");
    await expect(page.getByTestId("queue-row").first()).toContainText("0e2e-00");
    await page.getByRole("link", { name: "Next page →" }).click();
    await expect(page).toHaveURL(/after=/);
    await page.getByLabel("Queue name contains").fill("MEDIA");
    await page.getByRole("button", { name: "Find" }).click();
    await expect(page.getByTestId("queue-row")).toHaveCount(1);
    await expect(page.getByTestId("queue-row")).toContainText(QUEUE);
  });

  test("an operator creates a schedule and sees the job of its first tick", async ({ page, db }) => {
    const name = `e2e-${randomUUID().slice(0, 8)}`;
    await page.goto("/schedules");
    await page.getByRole("button", { name: "New schedule" }).click();
    const form = page.getByRole("form", { name: "New schedule" });
    await form.getByLabel("Name").fill(name);
    // Six fields, seconds first: a tick every five seconds.
    await form.getByLabel("Cron expression").fill("*/5 * * * * *");
    await form.getByLabel("Tenant").selectOption("acme");
    await form.getByLabel("Job type").selectOption("report.generate");
    await form.getByLabel("Queue").fill(QUEUE);
    await form.getByLabel("Params").fill(JSON.stringify(REPORT.params));
    await form.getByRole("button", { name: "Create schedule" }).click();

    const row = page.getByRole("row").filter({ hasText: name });
    await expect(row).toBeVisible();
    // The supervisor submits the first due tick; the page shows its job, linked.
    const link = row.getByRole("link", { name: /^[0-9a-f]{8}$/ }).first();
    await expect(link).toBeVisible({ timeout: 30_000 });
    const href = (await link.getAttribute("href")) ?? "";
    const id = href.split("/").pop() ?? "";
    const [job] = await db<{ type: string; queue: string; tenantId: string }[]>`SELECT type, queue, tenant_id FROM jobs WHERE id = ${id}`;
    expect(job).toEqual({ type: "report.generate", queue: QUEUE, tenantId: "acme" });

    // Paused, it submits nothing more.
    await row.getByRole("button", { name: `Pause schedule ${name}` }).click();
    await expect(row.getByRole("button", { name: `Resume schedule ${name}` })).toBeVisible();
    const [s] = await db<{ paused: boolean }[]>`SELECT paused FROM schedules WHERE name = ${name}`;
    expect(s?.paused).toBe(true);
  });
});
