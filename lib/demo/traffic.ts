import type { Sql } from "../db/client";
import { enqueue } from "../jobs/enqueue";
import { DEMO_TENANTS, randomJob } from "./seed";

/**
 * Keeps the demo alive: submits a few jobs a second across the demo tenants,
 * now and then one that kills its worker, so every state keeps being visited.
 */
export function startTraffic(sql: Sql, opts: { perSecond?: number; log?: (s: string) => void } = {}) {
  const period = 1000 / (opts.perSecond ?? 1.5);
  let n = 0;
  const timer = setInterval(() => {
    n++;
    const tenantId = DEMO_TENANTS[n % DEMO_TENANTS.length]!.id;
    const input = n % 120 === 0 ? { tenantId, type: "poison.crash", params: {} } : randomJob(Math.random, tenantId);
    enqueue(sql, input, { kind: "api", id: `api-key-${tenantId}` }).catch((e: unknown) =>
      opts.log?.(`traffic: ${e instanceof Error ? e.message : String(e)}`),
    );
  }, period);
  return () => clearInterval(timer);
}
