import { describe, expect, it } from "vitest";
import { runChaos, SHORT_PROFILE, totalViolations } from "./harness";

// The chaos harness's short profile: real worker and supervisor processes, every fault kind
// once, then every invariant. `npm run chaos -- --minutes 10` is the long run (docs/reliability.md).
const SECONDS = Number(process.env.CHAOS_SECONDS ?? SHORT_PROFILE.durationMs / 1000);

describe("chaos (short profile)", () => {
  it("survives kill -9, SIGSTOP past the lease, terminated backends, a PostgreSQL crash (SIGKILL, crash recovery), a dropped LISTEN and a drain with zero invariant violations, nothing acknowledged is lost or applied twice, and every job's explanation is true", async () => {
    const lines: string[] = [];
    const report = await runChaos({
      ...SHORT_PROFILE,
      durationMs: SECONDS * 1000,
      dataDir: `.data/chaos-pg-test-${process.pid}`,
      log: (l) => lines.push(l),
    });
    console.log(`CHAOS ${JSON.stringify({ ...report, log: lines })}`);
    expect(report.violationExamples).toEqual([]);
    expect(report.violations).toEqual(Object.fromEntries(Object.keys(report.violations).map((k) => [k, 0])));
    expect(totalViolations(report)).toBe(0);
    // Every fault kind was injected and did something.
    for (const k of SHORT_PROFILE.faultKinds!) expect(report.faults[k], k).toBeGreaterThanOrEqual(1);
    expect(report.faultDetails.backendsTerminated).toBeGreaterThan(0);
    // Each crash was a real one: the next start ran crash recovery, and the workers came back.
    expect(report.faultDetails.crashRecoveries).toBe(report.faults.pg_crash);
    expect(report.faultDetails.firstClaimAfterRestartMs.length).toBe(report.faults.pg_restart + report.faults.pg_crash);
    // The acknowledgements checked (violations above) are real ones, from both kinds of caller.
    expect(report.acknowledged.workerReports).toBeGreaterThan(50);
    expect(report.acknowledged.operatorActions).toBeGreaterThan(0);
    expect(report.faultDetails.drainsClean).toBe(report.faults.sigterm_drain);
    expect(report.runs.lease_expired ?? 0).toBeGreaterThan(0);
    expect(report.states.succeeded ?? 0).toBeGreaterThan(50);
    expect(report.integrityCheck.jobs).toBe(report.jobs);
    // Every job's explanation was checked against its history (the false_claims and tenant_leaks violations above).
    expect(report.claims.jobs).toBe(report.jobs);
  }, 150_000);
});
