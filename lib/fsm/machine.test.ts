import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ACTOR_KINDS,
  EVENTS,
  STATES,
  TERMINAL_STATES,
  TRANSITIONS,
  apply,
  eventsFor,
  eventsFrom,
  eventsOf,
  actorsFrom,
  actorsInto,
  findTransition,
  isEventOf,
  mayApply,
  MOVES,
  statesFrom,
  IllegalTransition,
  isDestructive,
  isRescheduling,
  isTerminal,
  rebuild,
  submitted,
  toMermaid,
  type ActorKind,
  type JobEvent,
  type JobSnapshot,
  type LoggedEvent,
} from ".";

const at = (state: JobSnapshot["state"], attempt = 1, maxAttempts = 3): JobSnapshot => ({
  state,
  attempt,
  maxAttempts,
  stateVersion: 5,
});

describe("the transition table", () => {
  it("has the design's 9 states and 27 transitions (24, the worker's release and the supervisor's two rescues), each (from, event) once", () => {
    expect(STATES).toHaveLength(9);
    expect(TRANSITIONS).toHaveLength(27);
    const keys = TRANSITIONS.map((t) => `${t.from}:${t.event}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("reaches every state from queued", () => {
    const seen = new Set<string>(["queued"]);
    const frontier = ["queued"];
    while (frontier.length) {
      const s = frontier.pop();
      for (const t of TRANSITIONS) {
        if (t.from === s && !seen.has(t.to)) {
          seen.add(t.to);
          frontier.push(t.to);
        }
      }
    }
    expect([...seen].sort()).toEqual([...STATES].sort());
  });

  it("keeps terminal states absorbing: only replay leaves dead, nothing leaves succeeded or cancelled", () => {
    const leaving = TRANSITIONS.filter((t) => t.from !== null && isTerminal(t.from));
    expect(leaving.map((t) => `${t.from}:${t.event}`)).toEqual(["dead:replay"]);
    expect(leaving[0]?.actors).toEqual(["operator"]);
    expect(TERMINAL_STATES.flatMap((s) => eventsFrom(s))).toEqual(["replay"]);
  });

  it("rejects every (state, event) pair that is not in the table", () => {
    let rejected = 0;
    for (const state of STATES) {
      for (const event of EVENTS) {
        const job = at(state, 1, 5);
        const t = findTransition(state, event);
        if (t) {
          expect(() => apply(job, event, t.actors[0])).not.toThrow();
        } else {
          expect(() => apply(job, event)).toThrow(IllegalTransition);
          rejected++;
        }
      }
    }
    expect(rejected).toBe(STATES.length * EVENTS.length - (TRANSITIONS.length - 1));
  });

  it("refuses an actor the table does not name", () => {
    expect(() => apply(at("running"), "pause", "supervisor")).toThrow(/a supervisor may not pause/);
    expect(() => apply(at("queued"), "cancel", "worker")).toThrow(IllegalTransition);
    expect(apply(at("queued"), "cancel", "tenant").state).toBe("cancelled");
  });

  it("increments the attempt only in the claim, and refuses a claim, fail or reclaim with no attempts left", () => {
    expect(apply(at("queued", 0), "claim")).toEqual({ state: "claimed", attempt: 1, maxAttempts: 3, stateVersion: 6 });
    expect(() => apply(at("queued", 3, 3), "claim")).toThrow(/needs attempts left/);
    expect(() => apply(at("running", 3, 3), "fail", "worker")).toThrow(/needs attempts left/);
    expect(() => apply(at("running", 3, 3), "reclaim", "supervisor")).toThrow(/needs attempts left/);
    expect(apply(at("running", 3, 3), "abandon", "supervisor").state).toBe("dead");
    expect(apply(at("cancelling", 3, 3), "reclaim", "supervisor").state).toBe("cancelled");
  });

  it("derives which operator events need a confirmation: those that can end a job without a result", () => {
    expect(eventsOf("operator").filter(isDestructive).sort()).toEqual(["abandon", "cancel"]);
  });

  it("derives which events set not_before again: a retry's backoff, a retry, a replay and the hand-backs", () => {
    expect(EVENTS.filter(isRescheduling).sort()).toEqual(["fail", "reclaim", "release", "replay", "rescue", "retry"]);
  });

  it("extends the attempt budget on replay", () => {
    expect(apply(at("dead", 3, 3), "replay", "operator")).toMatchObject({ state: "queued", attempt: 3, maxAttempts: 4 });
    expect(apply(at("dead", 1, 3), "replay", "operator")).toMatchObject({ maxAttempts: 3 });
  });

  it("refunds the attempt of a released (never started) claim: the attempt stays, the budget grows", () => {
    expect(apply(at("claimed", 3, 3), "release", "worker")).toEqual({ state: "queued", attempt: 3, maxAttempts: 4, stateVersion: 6 });
    expect(() => apply(at("running", 1, 3), "release", "worker")).toThrow(IllegalTransition);
    expect(() => apply(at("claimed", 1, 3), "release", "supervisor")).toThrow(/a supervisor may not release/);
  });

  it("never changes the value it is given", () => {
    const job = Object.freeze(at("running"));
    apply(job, "finish", "worker");
    expect(job.state).toBe("running");
  });

  it("renders a Mermaid diagram with one arrow per transition", () => {
    const text = toMermaid();
    expect(text.startsWith("stateDiagram-v2")).toBe(true);
    for (const t of TRANSITIONS) expect(text).toContain(`${t.from ?? "[*]"} --> ${t.to}: ${t.event}`);
  });
});

describe("who may do what, from the table", () => {
  it("answers mayApply for every (state, event, actor) exactly as the table's rows say", () => {
    for (const state of [null, ...STATES]) {
      for (const event of EVENTS) {
        for (const actor of ACTOR_KINDS) {
          const row = TRANSITIONS.find((t) => t.from === state && t.event === event);
          expect(mayApply(state, event, actor), `${state} ${event} ${actor}`).toBe(row?.actors.includes(actor) ?? false);
        }
      }
    }
    expect(MOVES).toHaveLength(TRANSITIONS.filter((t) => t.from !== null).reduce((n, t) => n + t.actors.length, 0));
  });

  it("lists the events of an actor: in a state, and on any existing job", () => {
    expect(eventsFor("running", "operator")).toEqual(["pause", "cancel"]);
    expect(eventsFor("running", "tenant")).toEqual(["cancel"]);
    expect(eventsFor("succeeded", "operator")).toEqual([]);
    expect(eventsOf("operator")).toEqual(["cancel", "pause", "resume", "abandon", "retry", "replay"]);
    expect(eventsOf("tenant")).toEqual(["cancel"]);
    expect(eventsOf("api")).toEqual([]);
    expect([isEventOf("operator", "replay"), isEventOf("operator", "submit"), isEventOf("tenant", "replay")]).toEqual([true, false, false]);
  });

  it("lists the states an event leaves for an actor, and who moves jobs out of and into a state", () => {
    expect(statesFrom("cancel", "tenant")).toEqual(["queued", "claimed", "running", "paused", "retry_wait"]);
    expect(statesFrom("replay", "operator")).toEqual(["dead"]);
    expect(statesFrom("replay", "supervisor")).toEqual([]);
    expect(actorsFrom("dead")).toEqual(["operator"]);
    expect(actorsFrom("succeeded")).toEqual([]);
    expect(actorsInto("succeeded")).toEqual(["worker"]);
    expect(actorsInto("dead")).toEqual(["supervisor", "worker", "operator"]);
  });
});

describe("random event sequences (property)", () => {
  // Three steps in four take a move the table offers from where the walk is (`pick` chooses which,
  // and who makes it); the others try any event as any actor, mostly refused. Uniform events alone
  // ended most walks in cancelled within a few steps: 2,000 of them reached dead once and never
  // replayed it, so the check below on leaving a terminal state never ran.
  const arbStep = fc.record({
    offered: fc.oneof({ arbitrary: fc.constant(true), weight: 3 }, { arbitrary: fc.constant(false), weight: 1 }),
    pick: fc.nat(),
    event: fc.constantFrom(...EVENTS),
    actor: fc.constantFrom(...ACTOR_KINDS),
  });
  const stepAt = (state: JobSnapshot["state"], step: { offered: boolean; pick: number; event: JobEvent; actor: ActorKind }) => {
    const here = TRANSITIONS.filter((t) => t.from === state);
    const t = here[step.pick % Math.max(1, here.length)];
    return step.offered && t ? { event: t.event, actor: t.actors[step.pick % t.actors.length]! } : { event: step.event, actor: step.actor };
  };

  it("keep every invariant, and rebuilding from the log reproduces the value", () => {
    // The events seen to leave a terminal state, over every run: the walks do reach one and leave it.
    const outOfTerminal = new Set<string>();
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.array(arbStep, { maxLength: 60 }), (maxAttempts, steps) => {
        let job = submitted(maxAttempts);
        const log: LoggedEvent[] = [{ event: "submit", fromState: null, toState: "queued", actorKind: "api", attempt: 0, stateVersion: 0 }];
        for (const step of steps) {
          const { event, actor } = stepAt(job.state, step);
          let next: JobSnapshot;
          try {
            next = apply(job, event, actor);
          } catch (e) {
            if (!(e instanceof IllegalTransition)) throw e;
            continue;
          }
          expect(next.stateVersion).toBe(job.stateVersion + 1);
          expect(next.attempt).toBeLessThanOrEqual(next.maxAttempts);
          expect(next.attempt - job.attempt).toBe(event === "claim" ? 1 : 0);
          if (isTerminal(job.state)) outOfTerminal.add(event);
          log.push({ event, fromState: job.state, toState: next.state, actorKind: actor, attempt: next.attempt, stateVersion: next.stateVersion });
          job = next;
        }
        expect(rebuild(log, maxAttempts)).toMatchObject({ complete: true, problems: [], job });
      }),
      { numRuns: 2000 },
    );
    expect([...outOfTerminal]).toEqual(["replay"]);
  });

  it("a rebuild notices a log that skips a step", () => {
    const log: LoggedEvent[] = [
      { event: "submit", fromState: null, toState: "queued", actorKind: "api", attempt: 0, stateVersion: 0 },
      { event: "start", fromState: "queued", toState: "running", actorKind: "worker", attempt: 0, stateVersion: 1 },
    ];
    expect(rebuild(log, 3)).toMatchObject({ complete: false, problems: [expect.stringMatching(/^v1: /)] });
  });
});

describe("docs", () => {
  it("docs/architecture.md shows the diagram generated from the table", async () => {
    const { readFileSync } = await import("node:fs");
    const doc = readFileSync(new URL("../../docs/architecture.md", import.meta.url), "utf8");
    expect(doc).toContain(toMermaid());
  });
});
