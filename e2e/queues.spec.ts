import { randomUUID } from "node:crypto";
import type { Db } from "../lib/db/client";
import { expect, test } from "./fixtures";
import { sql } from "drizzle-orm";
import { execute } from "../lib/db/drizzle";

/** A queue the e2e server's worker consumes (playwright.config.ts starts it on exports, media, default). */
const QUEUE = "media";
const REPORT = { tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" } } as const;

async function stateOf(db: Db, id: string): Promise<string | undefined> {
  const [j] = await execute<{ state: string }>(db, sql`SELECT state FROM jobs WHERE id = ${id}`);
  return j?.state;
}

async function setPaused(db: Db, paused: boolean) {
  await execute(db, sql`INSERT INTO queues (name, paused) VALUES (${QUEUE}, ${paused}) ON CONFLICT (name) DO UPDATE SET paused = ${paused}`);
}

test.describe("queues and schedules in the console", () => {
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
    const [q] = await execute<{ paused: boolean }>(db, sql`SELECT paused FROM queues WHERE name = ${QUEUE}`);
    expect(q?.paused).toBe(true);

    // A job submitted now stays queued while the worker, which serves this queue, keeps running: a
    // job submitted after it on another of the worker's queues is claimed and finished first.
    const job = await submit({ ...REPORT, queue: QUEUE });
    const witness = await submit({ ...REPORT, queue: "default" });
    await expect.poll(() => stateOf(db, witness.id), { timeout: 20_000 }).toBe("succeeded");
    expect(await stateOf(db, job.id)).toBe("queued");

    // The queue's jobs say why they wait.
    await page.goto(`/jobs?queue=${QUEUE}`);
    await expect(page.getByText(/paused/i).first()).toBeVisible();

    await page.goto("/queues");
    await page.getByRole("button", { name: `Resume queue ${QUEUE}` }).click();
    await expect(page.getByRole("button", { name: `Pause queue ${QUEUE}` })).toBeVisible();
    await expect.poll(() => stateOf(db, job.id), { timeout: 20_000 }).toBe("succeeded");

    // Both changes are in the audit log, by the signed-in operator.
    const audit = await execute<{ action: string }>(
      db,
      sql`
      SELECT action FROM audit_log WHERE action IN ('queue.pause', 'queue.resume') AND outcome = 'applied' ORDER BY id DESC LIMIT 2`,
    );
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

  test("an operator manages a schedule: refused per second, read in words, created, run now, edited, paused, deleted", async ({ page, db }) => {
    const name = `e2e-${randomUUID().slice(0, 8)}`;
    await page.goto("/schedules");
    await page.getByRole("button", { name: "New schedule" }).click();
    const form = page.getByRole("form", { name: "New schedule" });
    await form.getByLabel("Name").fill(name);
    // Every second: refused as it is typed, with the reason (and again on save).
    await form.getByLabel("Cron expression").fill("* * * * * *");
    await expect(form.getByRole("alert")).toContainText("fires 60 times a minute (Every second); a schedule fires at most once a minute");
    await form.getByLabel("Cron expression").fill("*/15 9-17 * * 1-5");
    await expect(form.getByText("Every 15 minutes, between 09:00 and 17:59, Monday through Friday")).toBeVisible();
    await expect(form.getByText(/^Next runs:/)).toBeVisible();
    await form.getByLabel("Tenant").selectOption("acme");
    await form.getByLabel("Job type").selectOption("report.generate");
    await form.getByLabel("Queue").fill(QUEUE);
    // The params are the type's form: a choice and a text field.
    await form.getByRole("combobox", { name: /^report/ }).selectOption("daily_usage");
    await form.getByRole("textbox", { name: /^period/ }).fill("2026-11");
    await form.getByRole("button", { name: "Create schedule" }).click();

    const row = page.getByRole("row").filter({ hasText: name });
    await expect(row).toContainText("Every 15 minutes, between 09:00 and 17:59, Monday through Friday");
    // Run now: its job at once, linked, its next tick unchanged.
    await row.getByRole("button", { name: `Run schedule ${name} now` }).click();
    const link = row.getByRole("link", { name: /^[0-9a-f]{8}$/ }).first();
    await expect(link).toBeVisible();
    const id = ((await link.getAttribute("href")) ?? "").split("/").pop() ?? "";
    const [job] = await execute<{ type: string; queue: string; tenantId: string }>(db, sql`SELECT type, queue, tenant_id FROM jobs WHERE id = ${id}`);
    expect(job).toEqual({ type: "report.generate", queue: QUEUE, tenantId: "acme" });

    await row.getByRole("button", { name: `Edit schedule ${name}` }).click();
    const edit = page.getByRole("form", { name: `Edit schedule ${name}` });
    await edit.getByLabel("Cron expression").fill("0 2 * * *");
    await edit.getByRole("button", { name: "Save schedule" }).click();
    await expect(row).toContainText("At 02:00");

    await row.getByRole("button", { name: `Pause schedule ${name}` }).click();
    await expect(row.getByRole("button", { name: `Resume schedule ${name}` })).toBeVisible();
    const [s] = await execute<{ paused: boolean; cron: string }>(db, sql`SELECT paused, cron FROM schedules WHERE name = ${name}`);
    expect(s).toEqual({ paused: true, cron: "0 2 * * *" });

    await row.getByRole("button", { name: `Delete schedule ${name}` }).click();
    await page
      .getByRole("dialog", { name: `Delete schedule ${name}?` })
      .getByRole("button", { name: "Yes, delete it" })
      .click();
    await expect(row).toHaveCount(0);
    const audit = await execute<{ action: string }>(
      db,
      sql`SELECT action FROM audit_log WHERE reason LIKE ${`%${name}%`} AND outcome = 'applied' ORDER BY id`,
    );
    expect(audit.map((a) => a.action)).toEqual(["schedule.create", "schedule.run_now", "schedule.update", "schedule.pause", "schedule.delete"]);
  });
});
