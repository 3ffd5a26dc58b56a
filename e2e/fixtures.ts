import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { test as base, expect, type Page } from "@playwright/test";
import { closeDb, connect, type Db } from "../lib/db/client";
import { urlFileFor } from "../lib/db/embedded";
import { History, OPERATOR } from "../lib/demo/history";
import { enqueue, type EnqueueInput } from "../lib/jobs/enqueue";
import type { JobRow } from "../lib/jobs/types";
import { sql } from "drizzle-orm";
import { execute } from "../lib/db/drizzle";

/** The e2e server's data directory (playwright.config.ts starts it with --data $E2E_DATA). */
const E2E_DATA = process.env.E2E_DATA ?? ".data/e2e";

/** A queue no worker of the e2e server consumes: jobs there stay exactly as a spec leaves them. */
export const HELD_QUEUE = "e2e-held";

/** The console's pages that the specs of roles and layouts walk through (an admin may open every one). */
export const CONSOLE_PAGES = [
  "/",
  "/jobs",
  "/dead",
  "/workers",
  "/rejections",
  "/state-machine",
  "/audit",
  "/integrity",
  "/admin",
  "/api-keys",
] as const;

export const SPEC_ACTOR = { kind: "api", id: "e2e-spec" } as const;
export { OPERATOR };

type Fixtures = {
  /** The e2e server's database, to create jobs and to check rows after a click. */
  db: Db;
  /** Submit a job through the write path. */
  submit: (input: EnqueueInput) => Promise<JobRow>;
  /**
   * Write a job's past through the write path with back-dated clocks (see lib/demo/history.ts).
   * A back-dated claim's heartbeat is as old as the claim, so the e2e server's supervisor
   * runs with a 6-hour stale threshold (playwright.config.ts): keep histories younger than that.
   */
  history: (startedAgoMs: number) => History;
  /** A paused acme job on the held queue (or `queue`), run by `worker`: every role may open it, all but support act on it. */
  pausedJob: (worker: string, queue?: string) => Promise<string>;
};

export const test = base.extend<Fixtures>({
  // Playwright's fixture signature requires the (empty) destructuring pattern.
  db: async ({}, use) => {
    const url = process.env.DATABASE_URL ?? readFileSync(urlFileFor(E2E_DATA), "utf8").trim();
    const db = connect(url, { max: 3, appName: "jobscope-e2e" });
    await use(db);
    await closeDb(db);
  },
  submit: async ({ db }, use) => {
    await use(async (input) => (await enqueue(db, input, SPEC_ACTOR)).job);
  },
  history: async ({ db }, use) => {
    await use((startedAgoMs) => new History(db, Date.now() - startedAgoMs));
  },
  pausedJob: async ({ history }, use) => {
    await use(async (worker, queue = HELD_QUEUE) => {
      const h = await history(60_000).submit(
        { tenantId: "acme", type: "report.generate", queue, params: { report: "daily_usage", period: "2026-11" } },
        SPEC_ACTOR,
      );
      await h.run(worker, 1_000);
      await h.step("pause", 1_000, OPERATOR);
      return h.id;
    });
  },
});

export { expect };

/** Polled sections fill in after their first response; on a loaded machine that can take a while. */
export const expectSoon = expect.configure({ timeout: 20_000 });

/** A full-page screenshot into $E2E_SCREENSHOTS, when it is set (to look the pages over). */
export async function shot(page: Page, name: string) {
  const dir = process.env.E2E_SCREENSHOTS;
  if (dir) await page.screenshot({ path: `${dir}/${name}.png`, fullPage: true });
}

/** Poll the database until `fn` returns something truthy. */
export async function eventually<T>(fn: () => Promise<T>, timeoutMs = 30_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error("timed out waiting for the database");
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function jobRow(db: Db, id: string): Promise<JobRow> {
  const [row] = await execute<JobRow>(db, sql`SELECT * FROM jobs WHERE id = ${id}`);
  if (!row) throw new Error(`no job ${id}`);
  return row;
}

/**
 * `n` report.generate jobs dead on the held queue, in one group no other spec shares: a class of
 * their own. Each history is returned too, to move its job on after a replay.
 */
export async function deadJobs(history: (agoMs: number) => History, n: number, errorClass = `E2eUniqueClass${randomUUID().slice(0, 8)}`) {
  const ids: string[] = [];
  const histories: History[] = [];
  for (let i = 0; i < n; i++) {
    // Back-dated a little, 200 ms apart, so the group's order (newest death first) is known. Not
    // more: the e2e supervisor abandons a lease whose back-dated heartbeat is over 10 s old.
    const h = await history(3_000 - i * 200).submit(
      { tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" }, queue: HELD_QUEUE, maxAttempts: 1 },
      SPEC_ACTOR,
    );
    await h.run("w-e2e", 500, 100);
    await h.step("abandon", 500, undefined, { error: { class: errorClass, message: `e2e: attempt ${i + 1} failed <b>for good</b>` } });
    ids.push(h.id);
    histories.push(h);
  }
  return { errorClass, ids, histories };
}
