import { describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { DEMO_USERS } from "./users";
import { FIRST_ADMIN_COMMAND, isDemoStart, prepareFirstRun } from "./first-run";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

const t = setupTestDb({ tenants: [] });
const demoUsers = () =>
  execute<{ email: string }>(t.pool, sql`SELECT email FROM users WHERE email = ANY(${sql.param(Object.values(DEMO_USERS).map((u) => u.email))})`);

describe("npm start: the demo has demo users, a deployment has none", () => {
  it("a start with DATABASE_URL, or --deployment, is a deployment; the embedded database is the demo", () => {
    expect(isDemoStart({}, false)).toBe(true);
    expect(isDemoStart({ DATABASE_URL: "postgres://db/jobscope" }, false)).toBe(false);
    expect(isDemoStart({}, true)).toBe(false);
  });

  it("a deployment creates no user with the known password and says how to create the first admin", async () => {
    const said = await prepareFirstRun(t.pool, { demo: false, demoJobs: 0, log: () => {} });
    expect(await demoUsers()).toEqual([]);
    expect((await execute(t.pool, sql`SELECT count(*)::int AS n FROM users`))[0]!.n).toBe(0);
    expect(said.join("\n")).toContain(FIRST_ADMIN_COMMAND);
    expect(said.join("\n")).not.toContain("jobscope-demo");
    // Jobscope's own tenant exists either way (bulk actions run as its jobs).
    expect(await execute(t.pool, sql`SELECT id FROM tenants`)).toEqual([{ id: "jobscope" }]);
  });

  it("the demo seeds its users (and says their password)", async () => {
    const said = await prepareFirstRun(t.pool, { demo: true, demoJobs: 20, log: () => {} });
    expect((await demoUsers()).length).toBe(Object.keys(DEMO_USERS).length);
    expect(said.join("\n")).toContain("jobscope-demo");
  });
});
