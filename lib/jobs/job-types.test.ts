import { afterEach, describe, expect, it, vi } from "vitest";
import { assertSubmitter, isJobType, isSystemQueue, JOB_TYPES, maySubmit, SubmitterError, typesFor, typesSeenBy } from "./job-types";

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

describe("job types declare who may submit them: a tenant cannot submit a demo type that crashes workers", () => {
  it("every type names its submitters; product types are open to the tenant API and the console", () => {
    for (const [type, spec] of Object.entries(JOB_TYPES)) expect(spec.submitters.length, type).toBeGreaterThan(0);
    for (const type of ["export.tenant_data", "media.render", "report.generate", "upstream.call"]) {
      expect(maySubmit(type, "tenant_api")).toBe(true);
      expect(maySubmit(type, "console")).toBe(true);
    }
  });

  it("in the demo, poison.crash exists but only Jobscope's own code may submit it", () => {
    expect(isJobType("poison.crash")).toBe(true);
    expect(maySubmit("poison.crash", "internal")).toBe(true);
    expect(maySubmit("poison.crash", "tenant_api")).toBe(false);
    expect(maySubmit("poison.crash", "console")).toBe(false);
    expect(() => assertSubmitter("poison.crash", "tenant_api")).toThrow(SubmitterError);
    expect(typesFor("tenant_api").map(([t]) => t)).not.toContain("poison.crash");
  });

  it("a tenant's filters and alert forms offer only the types it may submit, never Jobscope's own or the demo's internals", () => {
    expect(typesSeenBy(true)).toEqual(["export.tenant_data", "media.render", "report.generate", "upstream.call"]);
    expect(typesSeenBy(false)).toEqual(expect.arrayContaining(["jobscope.bulk", "jobscope.webhook", "poison.crash"]));
  });

  it("outside the demo, demo-only types do not exist: enqueue refuses them as unknown", async () => {
    vi.stubEnv("JOBSCOPE_DEMO", "0");
    vi.resetModules();
    const types = await import("./job-types");
    expect(types.isJobType("poison.crash")).toBe(false);
    expect(Object.keys(types.JOB_TYPES)).not.toContain("poison.crash");
    const { enqueue, EnqueueError } = await import("./enqueue");
    // The type is refused before any database work: no connection is needed to prove it.
    const err = await enqueue(null as never, { tenantId: "acme", type: "poison.crash", params: {} }, { kind: "operator", id: "t" }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(EnqueueError);
    expect((err as InstanceType<typeof EnqueueError>).code).toBe("unknown_type");
  });

  it("Jobscope's own queues and types are its own: no type a tenant or a person may submit uses them", () => {
    for (const [type, spec] of Object.entries(JOB_TYPES)) {
      const open = maySubmit(type, "tenant_api") || maySubmit(type, "console");
      if (type.startsWith("jobscope.") || isSystemQueue(spec.queue)) expect(open, type).toBe(false);
    }
    expect(isSystemQueue("jobscope")).toBe(true);
    expect(isSystemQueue("jobscope.alerts")).toBe(true);
    expect(isSystemQueue("jobscopes")).toBe(false);
  });
});
