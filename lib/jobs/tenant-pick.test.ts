import { describe, expect, it } from "vitest";
import { resolveTenant } from "./tenant-pick";

const TENANTS = [
  { id: "acme", name: "Acme Corp" },
  { id: "globex", name: "Globex Corporation" },
  { id: "initech", name: "Initech" },
];

describe("the tenant picker", () => {
  it("matches an id or a name, in any case, or a part only one tenant has", () => {
    expect(resolveTenant("acme", TENANTS)).toBe("acme");
    expect(resolveTenant("Acme", TENANTS)).toBe("acme");
    expect(resolveTenant("acm", TENANTS)).toBe("acme");
    expect(resolveTenant("Acme Corp", TENANTS)).toBe("acme");
    expect(resolveTenant("globex corporation", TENANTS)).toBe("globex");
    // Ambiguous ("corp" is in two names) or unknown: kept as typed, matched exactly by the list.
    expect(resolveTenant("corp", TENANTS)).toBe("corp");
    expect(resolveTenant("nobody", TENANTS)).toBe("nobody");
    expect(resolveTenant("  ", TENANTS)).toBeUndefined();
    expect(resolveTenant(undefined, TENANTS)).toBeUndefined();
  });
});
