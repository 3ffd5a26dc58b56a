import { describe, expect, it } from "vitest";
import { backoffDelay, DEFAULT_RETRY } from "./backoff";
import { describeError, MAX_ERROR_MESSAGE_BYTES, PermanentError } from "./errors";

describe("backoffDelay", () => {
  const noJitter = { ...DEFAULT_RETRY, jitter: 0 };
  it("doubles from the base per attempt and stops at the cap", () => {
    expect([1, 2, 3, 4].map((a) => backoffDelay(a, noJitter))).toEqual([2_000, 4_000, 8_000, 16_000]);
    expect(backoffDelay(9, noJitter)).toBe(512_000);
    expect(backoffDelay(10, noJitter)).toBe(600_000);
    expect(backoffDelay(5_000, noJitter)).toBe(600_000);
  });
  it("jitters downwards only, within the jitter fraction", () => {
    expect(backoffDelay(3, DEFAULT_RETRY, () => 0)).toBe(8_000);
    expect(backoffDelay(3, DEFAULT_RETRY, () => 1)).toBe(6_000);
    expect(backoffDelay(30, DEFAULT_RETRY, () => 0.5)).toBeLessThanOrEqual(DEFAULT_RETRY.capMs);
  });
});

describe("describeError", () => {
  class OutOfMemoryError extends Error {}
  it("names the error by its name, or its class when the name is the default", () => {
    expect(describeError(new PermanentError("x"))).toEqual({ class: "PermanentError", message: "x" });
    expect(describeError(new OutOfMemoryError("oom"))).toEqual({ class: "OutOfMemoryError", message: "oom" });
    expect(describeError(new TypeError("t"))).toEqual({ class: "TypeError", message: "t" });
    expect(describeError("a string")).toEqual({ class: "NonErrorThrown", message: "a string" });
  });
  it("caps the message at 8 KB without splitting a character", () => {
    const { message } = describeError(new Error("é".repeat(10_000)));
    expect(new TextEncoder().encode(message).length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_BYTES);
    expect(message).toMatch(/^é+… \[truncated\]$/);
  });
});
