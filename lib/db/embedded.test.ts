import { describe, expect, it } from "vitest";
import { importWithoutExitHooks } from "./embedded";

describe("embedded PostgreSQL", () => {
  it("loads without taking over the process's exit (which turned failing test runs green)", async () => {
    const events = ["exit", "beforeExit", "SIGINT", "SIGTERM", "message"] as const;
    const before = events.map((e) => process.listenerCount(e));
    const EmbeddedPostgres = await importWithoutExitHooks();
    expect(typeof EmbeddedPostgres).toBe("function");
    expect(events.map((e) => process.listenerCount(e))).toEqual(before);
  });
});
