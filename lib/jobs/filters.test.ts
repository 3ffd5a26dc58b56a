import { describe, expect, it } from "vitest";
import { orderOf, parseJobFilters, readJobFilters } from "./filters";

describe("orderOf: the order the jobs list pages in (and the pager names)", () => {
  it("lists a finished state's tab newest finished first even when the URL asks for created order", () => {
    expect(orderOf(parseJobFilters({ state: "succeeded", sort: "created" }))).toBe("finished");
    expect(orderOf(parseJobFilters({ state: "dead" }))).toBe("finished");
  });
  it("lists a live state's tab and the All tab newest created first, unless finished order or dates are asked", () => {
    expect(orderOf(parseJobFilters({ state: "queued" }))).toBe("created");
    expect(orderOf(parseJobFilters({}))).toBe("created");
    expect(orderOf(parseJobFilters({ sort: "finished" }))).toBe("finished");
    expect(orderOf(parseJobFilters({ state: "running", sort: "finished" }))).toBeNull();
  });
});

describe("readJobFilters: a link's filters that cannot be used are named, not dropped in silence", () => {
  it("names a value that does not parse, and an unknown parameter with the filter it probably meant", () => {
    const { filters, problems } = readJobFilters({
      state: "bogus",
      from: "notadate",
      createdTo: "notadate",
      sort: "sideways",
      limit: "5000",
      tenant: "acme",
    });
    expect(filters).toMatchObject({ state: undefined, createdTo: undefined, sort: "created", limit: 50, tenant: "acme" });
    expect(problems.map((p) => p.key).sort()).toEqual(["createdTo", "from", "limit", "sort", "state"]);
    const said = Object.fromEntries(problems.map((p) => [p.key, p.message]));
    expect(said.state).toMatch(/^state “bogus” was not applied: one of queued, claimed, running/);
    expect(said.from).toBe("from is not a filter of this list (did you mean createdFrom?)");
    expect(said.createdTo).toMatch(/not applied: a date and time/);
    expect(problems.every((p) => p.dropped)).toBe(true);
  });

  it("says nothing about a good link, and says a range that ends before it starts (kept: nothing matches)", () => {
    expect(readJobFilters({ state: "dead", createdFrom: "2026-11-01T00:00:00Z", sort: "oldest" }).problems).toEqual([]);
    const r = readJobFilters({ createdFrom: "2026-11-02T00:00:00Z", createdTo: "2026-11-01T00:00:00Z" });
    expect(r.problems).toEqual([
      { key: "createdFrom", dropped: false, message: "createdFrom is not before createdTo: no job was created in that range" },
    ]);
    expect(r.filters.createdFrom).toEqual(new Date("2026-11-02T00:00:00Z"));
  });

  it("drops a malformed page cursor and says the first page is shown", () => {
    const r = readJobFilters({ after: "not-a-cursor" });
    expect(r.filters.after).toBeUndefined();
    expect(r.problems[0]?.message).toMatch(/page cursor is not valid/);
  });
});
