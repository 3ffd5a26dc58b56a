import { describe, expect, it } from "vitest";
import type { JobDetail } from "./queries";
import { redactForTenant } from "./redact";

const at = new Date("2026-12-01T08:00:00Z");
const detail = {
  job: { id: "j", leaseOwner: "w-14" },
  runs: [
    { attempt: 1, workerId: "w-14", outcome: "lease_expired", errorClass: "LeaseExpired", errorMessage: "no heartbeat for more than 30000 ms" },
    { attempt: 2, workerId: "w-03", outcome: "failed", errorClass: "UpstreamTimeout", errorMessage: "timed out" },
  ],
  events: [
    { event: "submit", actorKind: "tenant", actorId: "dana@acme.example", payload: { maxAttempts: 3 }, at },
    { event: "claim", actorKind: "worker", actorId: "w-14", payload: null, at },
    {
      event: "reclaim",
      actorKind: "supervisor",
      actorId: "sup-1",
      payload: { error: "LeaseExpired", crash: { worker: "w-14", blamed: null, crashes: 1, heldUntil: "2026-12-01T08:00:10.000Z" } },
      at,
    },
    { event: "pause", actorKind: "operator", actorId: "ops@jobscope.dev", payload: null, at },
  ],
  rejections: [{ actorKind: "operator", actorId: "ops@jobscope.dev" }],
  eventCount: 4,
} as unknown as JobDetail;

describe("a tenant's copy of a job's detail leaves the machinery's names out", () => {
  it("names no worker, lease owner, supervisor or staff member; keeps the tenant's own people", () => {
    const r = redactForTenant(detail);
    const text = JSON.stringify(r);
    for (const hidden of ["w-14", "w-03", "sup-1", "ops@jobscope.dev", "LeaseExpired", "heartbeat"]) expect(text).not.toContain(hidden);
    expect(r.events.map((e) => e.actorId)).toEqual(["dana@acme.example", "", "", ""]);
    expect(r.events.map((e) => e.actorKind)).toEqual(["tenant", "worker", "supervisor", "operator"]);
    expect(r.runs[0]).toMatchObject({ outcome: "lease_expired", errorClass: "Interrupted" });
    expect(r.runs[1]).toMatchObject({ errorClass: "UpstreamTimeout", errorMessage: "timed out" });
    expect(r.job.leaseOwner).toBeNull();
    expect(r.rejections).toEqual([]);
    // Of the supervisor's payload, only how long the crash held the job back: what its wait was.
    expect(r.events[2]!.payload).toEqual({ crash: { heldUntil: "2026-12-01T08:00:10.000Z" } });
  });
});
