import { describe, expect, it } from "vitest";
import { Fifo } from "./fifo";

describe("Fifo", () => {
  it("gives items back in the order they came, across its compactions", () => {
    const q = new Fifo<number>();
    const out: number[] = [];
    let next = 0;
    // Interleave pushes and shifts so the front is dropped many times with items still queued.
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < 97; i++) q.push(next++);
      for (let i = 0; i < 90; i++) out.push(q.shift()!);
      expect(q.length).toBe(next - out.length);
    }
    while (q.length > 0) out.push(q.shift()!);
    expect(out).toEqual(Array.from({ length: next }, (_, i) => i));
    expect(q.shift()).toBeUndefined();
    expect(q.length).toBe(0);
  });
});
