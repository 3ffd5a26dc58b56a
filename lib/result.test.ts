import { describe, expect, it } from "vitest";
import { z } from "zod";
import { describeInvalid, inputIssues } from "./result";

const Input = z.strictObject({ name: z.string().min(3), params: z.strictObject({ frames: z.int().max(10) }).optional() });
const errorOf = (raw: unknown) => {
  const r = Input.safeParse(raw);
  if (r.success) throw new Error("expected a refusal");
  return r.error;
};

describe("describeInvalid: the one formatter of invalid input", () => {
  it("names the first issue as field: problem, nested paths dotted", () => {
    expect(describeInvalid(errorOf({ name: "ab" }))).toMatch(/^name: Too small: /);
    expect(describeInvalid(errorOf({ name: "abc", params: { frames: 11 } }))).toMatch(/^params\.frames: Too big: /);
  });

  it("names the value as a whole, unknown keys and several issues in the caller's words", () => {
    expect(describeInvalid(errorOf(null))).toMatch(/^input: Invalid input/);
    expect(describeInvalid(errorOf(null), { whole: "body" })).toMatch(/^body: /);
    expect(describeInvalid(errorOf({ name: "abc", password: "hunter2", x: 1 }))).toBe('unknown fields "password", "x"');
    const query = { whole: "query", label: (p: string) => `query parameter ${p}`, key: "query parameter" };
    expect(describeInvalid(errorOf({ name: "abc", tenant: "globex" }), query)).toBe('unknown query parameter "tenant"');
    expect(describeInvalid(errorOf({ name: 1 }), query)).toMatch(/^query parameter name: /);
    const two = errorOf({ name: "ab", params: { frames: 11 } });
    expect(
      describeInvalid(two, { most: 2 })
        .split("; ")
        .map((p) => p.split(":")[0]),
    ).toEqual(["name", "params.frames"]);
  });

  it("reads issues already taken out of a zod error the same way, inside a prefix", () => {
    const issues = inputIssues(errorOf({ name: "abc", params: { frames: 11 } }));
    expect(issues).toEqual([{ path: "params.frames", message: expect.stringMatching(/^Too big/) }]);
    expect(describeInvalid(issues)).toBe(describeInvalid(errorOf({ name: "abc", params: { frames: 11 } })));
    expect(describeInvalid([{ path: "frames", message: "too many" }], { prefix: "params" })).toBe("params.frames: too many");
    expect(describeInvalid([{ path: "", message: "not an object" }], { prefix: "params" })).toBe("params: not an object");
    expect(describeInvalid([])).toBe("input: invalid");
  });
});
