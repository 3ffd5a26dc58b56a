import { describe, expect, it } from "vitest";
import { TRANSITIONS } from "../fsm/table";
import { labelsOverlap, layoutStateMachine, separateLabels, type Edge } from "./diagram-layout";

describe("the state diagram's layout", () => {
  it("draws one arrow per pair of states, carrying every event of the table", () => {
    const { edges } = layoutStateMachine();
    expect(edges.flatMap((e) => e.events).sort()).toEqual(TRANSITIONS.map((t) => t.event).sort());
  });

  it("keeps every arrow's label clear of the others", () => {
    expect(labelsOverlap(layoutStateMachine().edges)).toBe(false);
  });

  it("moves a label that would print over another", () => {
    const at = (from: Edge["from"], events: string[], y: number): Edge => ({
      from,
      to: "queued",
      events,
      path: "",
      labelX: 100,
      labelY: y,
      back: false,
    });
    const crowded = [at("claimed", ["stop"], 50), at("running", ["abandon"], 52), at("paused", ["claim"], 54)];
    expect(labelsOverlap(crowded)).toBe(true);
    expect(labelsOverlap(separateLabels(crowded))).toBe(false);
  });
});
