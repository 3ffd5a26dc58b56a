import type { Db, Pool } from "./client";
import { drizzleOver } from "./client";

type Lane = { db: Db; release: () => void; inFlight: number };

/** What `Lanes.pick` hands out: the connection to send on, and the call to make when its statement ends. */
export type Picked = { db: Db; done: (error?: unknown) => void };

/**
 * A few connections reserved from a pool, each carrying several statements at once (postgres.js
 * pipelines the statements sent on one connection: the server runs them back to back, with no
 * round trip between them; on a reserved connection only as patched, patches/README.md). An
 * unbatched worker sends one statement per job from each of its slots; on one connection per slot,
 * 24 backends contend on two cores for the same few rows and index pages, and PostgreSQL spent about
 * half as much CPU per job again as on six pipelined connections (docs/decisions.md, "One-job
 * rounds on a few pipelined connections"). Of 3, 4, 6 and 8 lanes for 24 slots, 6 and 8 read fastest.
 *
 * `pick` is synchronous: while a lane is being reserved (at the start, after a lost connection) the
 * statement goes on the pool itself. A lane whose connection was lost is dropped (its connection
 * is the pool's again, to reconnect) and another reserved on the next pick.
 */
export class Lanes {
  private lanes: Lane[] = [];
  private reserving = 0;
  private closed = false;

  private readonly size: number;

  /** `size` connections, at most the pool's less two (its LISTEN, and the statements that are not rounds). */
  constructor(
    private readonly pool: Pool,
    size: number,
  ) {
    const max = (pool.$client.options as { max?: number }).max ?? 10;
    this.size = Math.max(0, Math.min(size, max - 2));
  }

  /** Reserve the connections now (a worker, before its first round); one that cannot be had is tried again on a pick. */
  async open(): Promise<void> {
    const want = this.size - this.lanes.length - this.reserving;
    await Promise.all(Array.from({ length: Math.max(0, want) }, () => this.reserve()));
  }

  pick(): Picked {
    if (!this.closed && this.lanes.length + this.reserving < this.size) this.reserve();
    let lane: Lane | null = null;
    for (const l of this.lanes) if (!lane || l.inFlight < lane.inFlight) lane = l;
    if (!lane) return { db: this.pool, done: () => {} };
    const l = lane;
    l.inFlight++;
    return {
      db: l.db,
      done: (error) => {
        l.inFlight--;
        if (error !== undefined && connectionLost(error)) this.lanes = this.lanes.filter((x) => x !== l);
      },
    };
  }

  /** Give the connections back to the pool (nothing may be in flight on them). */
  close() {
    this.closed = true;
    for (const l of this.lanes.splice(0)) l.release();
  }

  private reserve(): Promise<void> {
    this.reserving++;
    return this.pool.$client.reserve().then<void, void>(
      (sql) => {
        this.reserving--;
        if (this.closed) return void sql.release();
        // A reserved connection's client has no `options` of its own: the pool's codecs are its codecs.
        const db = drizzleOver(Object.assign(sql, { options: this.pool.$client.options }));
        this.lanes.push({ db, release: () => sql.release(), inFlight: 0 });
      },
      // The server is down or the pool is ending: the next pick tries again.
      () => void this.reserving--,
    );
  }
}

/** How many lanes an unbatched worker of `concurrency` slots keeps by default: one per four slots. */
export const lanesFor = (concurrency: number) => Math.ceil(concurrency / 4);

/**
 * The error says the connection is gone: postgres.js's own (CONNECTION_CLOSED…), the socket's
 * (ECONNRESET…), SQLSTATE class 08 (connection exception) or 57P01–57P03 (the server is shutting
 * down or terminated the backend). A statement's own failure (a deadlock, a constraint) keeps the lane.
 */
export function connectionLost(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return false;
  return /^(CONNECTION_|CONNECT_TIMEOUT|E[A-Z]+$)/.test(code) || code.startsWith("08") || /^57P0[123]$/.test(code);
}
