import { describe, expect, it } from "vitest";
import { parsePhrase } from "./phrase";

const ctx = {
  tenants: [
    { id: "acme", name: "Acme Corp" },
    { id: "globex", name: "Globex Corporation" },
  ],
  types: ["export.tenant_data", "report.generate", "media.render", "upstream.call"],
  now: Date.parse("2026-12-01T10:00:00Z"),
  timeZone: "UTC",
};

describe("a support person's phrase in the lookup (issue 14: 'acme, export, yesterday, slow')", () => {
  it("turns the phrase into filters", () => {
    expect(parsePhrase("acme export yesterday slow", ctx)).toEqual({
      tenant: "acme",
      type: "export.tenant_data",
      createdFrom: new Date("2026-11-30T00:00:00Z"),
      createdTo: new Date("2026-12-01T00:00:00Z"),
      sort: "duration",
    });
    expect(parsePhrase("Acme's export from yesterday was slow", ctx)).toMatchObject({ tenant: "acme", type: "export.tenant_data", sort: "duration" });
    expect(parsePhrase("globex dead reports last 7 days", ctx)).toBeNull(); // "reports" is not a type's word
    expect(parsePhrase("globex dead report last 7 days", ctx)).toMatchObject({
      tenant: "globex",
      state: "dead",
      type: "report.generate",
      createdFrom: new Date("2026-11-25T00:00:00Z"),
    });
  });

  it("leaves ids, keys and half-understood phrases to the id lookup", () => {
    expect(parsePhrase("demo-slow-export", ctx)).toBeNull();
    expect(parsePhrase("acme", ctx)).toBeNull();
    expect(parsePhrase("acme banana", ctx)).toBeNull();
    expect(parsePhrase("01a230b2 slow", ctx)).toBeNull();
    // A tenant member has no tenant list: another tenant's name is not understood.
    expect(parsePhrase("globex export", { ...ctx, tenants: [] })).toBeNull();
  });
});
