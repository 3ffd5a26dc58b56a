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

describe("a support person's phrase in the lookup", () => {
  it("turns the phrase into filters, and says what each word was read as", () => {
    expect(parsePhrase("acme export yesterday slow", ctx)).toEqual({
      filters: {
        tenant: "acme",
        type: "export.tenant_data",
        createdFrom: new Date("2026-11-30T00:00:00Z"),
        createdTo: new Date("2026-12-01T00:00:00Z"),
        sort: "duration",
      },
      read: [
        { word: "acme", as: "tenant acme" },
        { word: "export", as: "type export.tenant_data" },
        { word: "yesterday", as: "created yesterday" },
        { word: "slow", as: "longest first" },
      ],
      ignored: [],
    });
    expect(parsePhrase("Acme's export from yesterday was slow", ctx)?.filters).toMatchObject({
      tenant: "acme",
      type: "export.tenant_data",
      sort: "duration",
    });
    expect(parsePhrase("globex dead report last 7 days", ctx)?.filters).toMatchObject({
      tenant: "globex",
      state: "dead",
      type: "report.generate",
      createdFrom: new Date("2026-11-25T00:00:00Z"),
    });
  });

  it("reads the words people add (plurals, 'for', 'last week') instead of failing on them", () => {
    const r = parsePhrase("slow exports for acme last week", ctx);
    expect(r?.filters).toMatchObject({ sort: "duration", type: "export.tenant_data", tenant: "acme", createdFrom: new Date("2026-11-25T00:00:00Z") });
    expect(r?.ignored).toEqual([]);
    expect(parsePhrase("globex dead reports", ctx)?.filters).toMatchObject({ tenant: "globex", state: "dead", type: "report.generate" });
  });

  it("names the words it did not understand instead of dropping them in silence", () => {
    const r = parsePhrase("acme export yesterday banana urgently", ctx);
    expect(r?.filters).toMatchObject({ tenant: "acme", type: "export.tenant_data" });
    expect(r?.ignored).toEqual(["banana", "urgently"]);
    // A second tenant is not a filter the list can take: named, not applied.
    expect(parsePhrase("acme globex exports", ctx)).toMatchObject({ filters: { tenant: "acme", type: "export.tenant_data" }, ignored: ["globex"] });
    // A tenant member has no tenant list: another tenant's name is not understood, and said so.
    expect(parsePhrase("globex export", { ...ctx, tenants: [] })).toMatchObject({ filters: { type: "export.tenant_data" }, ignored: ["globex"] });
  });

  it("leaves ids, keys and phrases that filter nothing to the id lookup", () => {
    expect(parsePhrase("demo-slow-export", ctx)).toBeNull();
    expect(parsePhrase("acme", ctx)).toBeNull();
    expect(parsePhrase("banana split", ctx)).toBeNull();
    // A sort alone filters nothing; an id's piece means the person is looking for one job.
    expect(parsePhrase("slow banana", ctx)).toBeNull();
    expect(parsePhrase("01a230b2 slow", ctx)).toBeNull();
    expect(parsePhrase("acme 9f3c2e1d7a4b", ctx)).toBeNull();
  });
});
