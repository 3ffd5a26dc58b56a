import { describe, expect, it } from "vitest";
import { orderOf, parseJobFilters } from "./filters";

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
