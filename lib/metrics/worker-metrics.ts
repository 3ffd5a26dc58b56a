import { createServer, type Server } from "node:http";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { JobOutcome } from "../worker/types";

/**
 * A worker's own metrics, kept in the process and served on its `metricsPort`: what
 * this worker claimed, ran and reported, as it happened, with no database work (the hot path's
 * statements are unchanged; an outcome costs a few map lookups). GET /metrics on the console sees
 * the whole system from the history; this endpoint sees one worker without delay.
 */
export type WorkerMetrics = {
  registry: Registry;
  outcome(o: JobOutcome): void;
  /** Serve GET /metrics on `port` (0: any free port). Resolves with the port it listens on. */
  serve(port: number, host?: string): Promise<{ port: number; close: () => Promise<void> }>;
};

export const ATTEMPT_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600];

export function createWorkerMetrics(
  workerId: string,
  live: { stats: () => { rounds: number; reports: number; claimed: number; listening: boolean }; held: () => number },
): WorkerMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ worker: workerId });
  collectDefaultMetrics({ register: registry, prefix: "jobscope_worker_" });
  const outcomes = new Counter({
    name: "jobscope_worker_attempts_total",
    help: "Attempts this worker is done with, by type, status (reported, refused, lease_lost, drained, failed_to_report, released) and event (finish, fail, abandon, stop, …).",
    labelNames: ["type", "status", "event"],
    registers: [registry],
  });
  const duration = new Histogram({
    name: "jobscope_worker_attempt_seconds",
    help: "From the claim to the worker being done with the attempt (handler and report), by type and event.",
    labelNames: ["type", "event"],
    buckets: ATTEMPT_BUCKETS,
    registers: [registry],
  });
  new Counter({
    name: "jobscope_worker_jobs_claimed_total",
    help: "Jobs this worker claimed (each claim starts its job).",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(live.stats().claimed);
    },
  });
  new Counter({
    name: "jobscope_worker_rounds_total",
    help: "Statements this worker sent (each carries reports and a claim).",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(live.stats().rounds);
    },
  });
  new Gauge({
    name: "jobscope_worker_jobs_held",
    help: "Jobs this worker holds a lease on (running, or claimed and waiting for a handler slot).",
    registers: [registry],
    collect() {
      this.set(live.held());
    },
  });
  new Gauge({
    name: "jobscope_worker_listening",
    help: "1 while LISTEN is up (0: the worker claims by polling).",
    registers: [registry],
    collect() {
      this.set(live.stats().listening ? 1 : 0);
    },
  });

  return {
    registry,
    outcome(o) {
      const event = o.event ?? "";
      outcomes.inc({ type: o.type, status: o.status, event });
      duration.observe({ type: o.type, event }, o.durationMs / 1000);
    },
    serve(port, host = "127.0.0.1") {
      const server: Server = createServer((req, res) => {
        if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/metrics") {
          res.writeHead(404).end();
          return;
        }
        registry.metrics().then(
          (text) => res.writeHead(200, { "content-type": registry.contentType }).end(text),
          () => res.writeHead(500).end(),
        );
      });
      return new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          const addr = server.address();
          resolve({
            port: typeof addr === "object" && addr ? addr.port : port,
            close: () => new Promise<void>((r) => server.close(() => r())),
          });
        });
      });
    },
  };
}
