import { describe, expect, it } from "vitest";
import { safeNext } from "./next-path";

describe("safeNext: ?next= never redirects off this origin", () => {
  it("keeps paths on this site", () => {
    expect(safeNext("/jobs?state=dead&tenant=acme")).toBe("/jobs?state=dead&tenant=acme");
    expect(safeNext("/jobs/00000000-0000-4000-8000-000000000000#runs")).toBe("/jobs/00000000-0000-4000-8000-000000000000#runs");
    expect(safeNext("/")).toBe("/");
    // Percent-encoded text stays encoded: a browser requests it as a path, never as a host.
    expect(safeNext("/%2F%2Fevil.example")).toBe("/%2F%2Fevil.example");
  });

  it("refuses anything a browser could follow to another host", () => {
    const attacks = [
      "/\t/evil.example/phish", // the attack as reported: browsers drop the tab and go to //evil.example
      "/\t\\evil.example",
      "/\\evil.example",
      "\\/evil.example",
      "//evil.example",
      "/\n/evil.example",
      "/\r\n/evil.example",
      "/ /evil.example".replace(" ", "\u000b"),
      "https://evil.example/",
      "javascript:alert(1)",
      "evil.example",
      "/\u2028/evil.example",
      "/\u0085/evil.example",
      "",
      "/" + "a".repeat(2001),
    ];
    for (const a of attacks) expect(safeNext(a), JSON.stringify(a)).toBe("/");
  });

  it("returns only header-safe text (a newline or U+2028 used to make the redirect answer 500)", () => {
    for (const s of ["/jobs\u2028x", "/jobs\nSet-Cookie: a=b", "/jobs?q=ü", "/jöbs#ü"]) {
      const out = safeNext(s);
      expect(out, JSON.stringify(s)).toMatch(/^\/[\x21-\x7e]*$/);
    }
    expect(safeNext("/jobs?q=ü")).toBe("/jobs?q=%C3%BC");
  });

  it("never throws on odd input", () => {
    for (const s of [null, undefined, "/%", "/%zz", "/[::1]", "/\ud800"]) expect(() => safeNext(s)).not.toThrow();
  });
});
