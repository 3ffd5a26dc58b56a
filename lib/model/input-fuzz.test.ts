import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { setupTestDb } from "../db/test-db";
import { ACTOR_KINDS, EVENTS, STATES } from "../fsm/table";
import { enqueue, EnqueueError } from "../jobs/enqueue";
import { newJob } from "../jobs/test-helpers";
import { InvalidTransitionInput, MAX_ACTOR_ID, transition } from "../jobs/transition";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

// Bad input at the library's front doors (enqueue, transition): every malformed value is
// refused with a typed error or a refusal, and nothing is written to jobs or job_events.
const RUNS = Number(process.env.FUZZ_RUNS ?? 150);

const t = setupTestDb();

const counts = async () => {
  const [r] = await execute<{ jobs: number; events: number }>(
    t.pool,
    sql`
    SELECT (SELECT count(*) FROM jobs)::int AS jobs, (SELECT count(*) FROM job_events)::int AS events`,
  );
  return r!;
};

/** Strings a client should never be trusted with: NUL bytes, lone surrogates (invalid UTF-8 once encoded), huge, odd unicode. */
const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: "grapheme" }),
  fc.constantFrom("\u0000", "a\u0000b", "\ud800", "x\udfffy", "'; DROP TABLE jobs; --", "../../etc/passwd", "%00", "\u202e", "null", "__proto__"),
  fc.string({ minLength: 5_000, maxLength: 20_000 }),
);
/** Any JSON-ish value, deep nesting included. */
const anything = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  nasty,
  fc.constantFrom(undefined, null, NaN, Infinity, -1, 1e308, 2 ** 53 + 1, [], {}, true),
  fc.letrec((tie) => ({ deep: fc.oneof({ depthSize: "small" }, fc.constant({}), fc.record({ a: tie("deep") })) })).deep,
);
/** Nested `depth` levels: {a:{a:{...}}}. */
const nested = (depth: number) => {
  let v: unknown = {};
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};

describe("enqueue refuses bad input and writes nothing", () => {
  it("random objects, wrong types, unknown job types, NUL bytes, lone surrogates, huge and deep params", async () => {
    const before = await counts();
    const codes: Record<string, number> = {};
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            tenantId: fc.oneof(
              { arbitrary: fc.constantFrom("acme", "globex", "nobody"), weight: 4 },
              { arbitrary: nasty, weight: 1 },
              { arbitrary: anything, weight: 1 },
            ),
            type: fc.oneof(
              {
                arbitrary: fc.constantFrom("report.generate", "upstream.call", "no.such.type", "REPORT.GENERATE", "report.generate\u0000"),
                weight: 4,
              },
              { arbitrary: nasty, weight: 1 },
              { arbitrary: anything, weight: 1 },
            ),
            params: fc.oneof(anything, fc.constant(nested(2_000)), fc.record({ report: nasty, period: nasty })),
            queue: fc.oneof(nasty, anything),
            priority: anything,
            maxAttempts: anything,
            notBefore: anything,
            idempotencyKey: anything,
            extra: anything,
          },
          { requiredKeys: ["tenantId", "type", "params"] },
        ),
        async (raw) => {
          // A few well-formed inputs slip through the generator (tenantId "acme" is rare); skip them.
          try {
            const r = await enqueue(t.pool, raw as never, { kind: "api", id: "fuzz" });
            expect.fail(`accepted ${JSON.stringify(raw).slice(0, 200)} as ${r.job.id}`);
          } catch (e) {
            expect(e).toBeInstanceOf(EnqueueError);
            const code = (e as EnqueueError).code;
            codes[code] = (codes[code] ?? 0) + 1;
            expect((e as Error).message.length).toBeLessThan(2_000);
          }
        },
      ),
      { numRuns: RUNS },
    );
    // Only the three required fields: reaches the type, params and tenant checks.
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("acme", "globex", "nobody", "ACME", "acme\u0000"),
        fc.constantFrom("report.generate", "upstream.call", "media.render", "no.such.type", "REPORT.GENERATE", "report.generate "),
        fc.oneof(anything, fc.record({ report: fc.oneof(nasty, fc.constant("daily_usage")), period: fc.oneof(nasty, fc.constant("2026-1")) })),
        async (tenantId, type, params) => {
          await expect(enqueue(t.pool, { tenantId, type, params }, { kind: "api", id: "fuzz" })).rejects.toSatisfy((e: unknown) => {
            if (!(e instanceof EnqueueError)) return false;
            codes[e.code] = (codes[e.code] ?? 0) + 1;
            return true;
          });
        },
      ),
      { numRuns: RUNS },
    );
    // The known tenant, a known type, and poison in the params.
    for (const params of [
      nested(5_000),
      { report: "daily_usage", period: "2026-11\u0000" },
      { report: "\ud800", period: "2026-11" },
      { report: "daily_usage", period: "2026-11", x: 1 },
    ]) {
      await expect(enqueue(t.pool, { tenantId: "acme", type: "report.generate", params }, { kind: "api", id: "fuzz" })).rejects.toMatchObject({
        code: "invalid_params",
      });
    }
    await expect(
      enqueue(t.pool, { tenantId: "acme\u0000", type: "report.generate", params: {} }, { kind: "api", id: "fuzz" }),
    ).rejects.toBeInstanceOf(EnqueueError);
    await expect(
      enqueue(
        t.pool,
        { tenantId: "acme", type: "report.generate", params: { report: "daily_usage", period: "2026-11" } },
        { kind: "worker", id: "w" },
      ),
    ).rejects.toMatchObject({ code: "forbidden" });
    console.log(`FUZZ enqueue ${JSON.stringify(codes)}`);
    expect(await counts()).toEqual(before);
  }, 60_000);
});

describe("transition refuses bad input and moves nothing", () => {
  it("malformed ids, unknown events and states, wrong actors, negative and huge versions and attempts", async () => {
    const job = await newJob(t.pool);
    const before = await counts();
    const kinds: Record<string, number> = {};
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          jobId: fc.oneof(
            { arbitrary: fc.constantFrom(job.id, job.id.toUpperCase()), weight: 4 },
            { arbitrary: fc.oneof(nasty, fc.uuid(), fc.constant(`${job.id}\u0000`), fc.constant(` ${job.id}`)), weight: 2 },
          ),
          event: fc.oneof(fc.constantFrom(...EVENTS), nasty),
          actorKind: fc.oneof(fc.constantFrom(...ACTOR_KINDS), nasty),
          actorId: nasty,
          state: fc.oneof(fc.constantFrom(...STATES), nasty),
          version: fc.oneof(
            fc.integer({ min: -5, max: 5 }).filter((v) => v !== 0),
            fc.constantFrom(2 ** 31, -(2 ** 31), 0.5, NaN),
          ),
          attempt: fc.oneof(fc.integer(), fc.constantFrom(undefined, NaN, 0.5)),
        }),
        async (f) => {
          const input = {
            jobId: f.jobId,
            event: f.event,
            actor: { kind: f.actorKind, id: f.actorId },
            expected: { state: f.state, version: f.version },
            attempt: f.attempt,
          } as never;
          let kind: string;
          try {
            const r = await transition(t.pool, input);
            expect(r.ok).toBe(false);
            kind = r.ok ? "applied" : r.kind;
          } catch (e) {
            // Values PostgreSQL itself refuses (an unknown enum label, an out-of-range int) are thrown errors; the transaction rolled back.
            kind = `threw:${(e as { code?: string }).code ?? (e as Error).name}`;
          }
          kinds[kind] = (kinds[kind] ?? 0) + 1;
        },
      ),
      { numRuns: RUNS },
    );
    console.log(`FUZZ transition ${JSON.stringify(kinds)}`);
    // No input reaches a database limit (54000: an actor id too long for the rejections' index).
    expect(Object.keys(kinds).filter((k) => k.startsWith("threw:54"))).toEqual([]);
    const after = await counts();
    expect(after).toEqual(before);
    const [row] = await execute<{ state: string; stateVersion: number }>(t.pool, sql`SELECT state, state_version FROM jobs WHERE id = ${job.id}`);
    expect(row).toEqual({ state: "queued", stateVersion: 0 });
  }, 60_000);

  it("an actor id longer than the limit is refused with a clear error before anything is written", async () => {
    const job = await newJob(t.pool);
    const rejections = async () => (await execute<{ n: number }>(t.pool, sql`SELECT count(*)::int AS n FROM transition_rejections`))[0]!.n;
    const before = { ...(await counts()), rejections: await rejections() };
    for (const id of ["x".repeat(MAX_ACTOR_ID + 1), "x".repeat(20_000), ""]) {
      await expect(
        transition(t.pool, { jobId: job.id, event: "cancel", actor: { kind: "operator", id }, expected: { state: "running", version: 3 } }),
      ).rejects.toBeInstanceOf(InvalidTransitionInput);
    }
    expect({ ...(await counts()), rejections: await rejections() }).toEqual(before);
  });
});
