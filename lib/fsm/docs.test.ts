import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { STATES, TRANSITIONS } from "./table";

// The README quotes the table's size: a change to lib/fsm/table.ts must change the text too.
describe("the docs quote the state machine as it is", () => {
  it("README's counts of states and transitions are the table's", () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const m = /\((\d+) states, (\d+) transitions/.exec(readme);
    expect(m, "README names its counts as '(N states, M transitions'").not.toBeNull();
    expect({ states: Number(m![1]), transitions: Number(m![2]) }).toEqual({ states: STATES.length, transitions: TRANSITIONS.length });
  });
});
