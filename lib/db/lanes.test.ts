import net from "node:net";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { execute } from "./drizzle";
import { connectionLost, Lanes } from "./lanes";
import { setupTestDb } from "./test-db";
import { waitFor } from "./test-wait";

const t = setupTestDb({ max: 10, tenants: [] });

/** `n` statements at once through `lanes`, each answering its backend's pid. */
async function burst(lanes: Lanes, n: number, ms = 20) {
  return Promise.all(
    Array.from({ length: n }, async () => {
      const lane = lanes.pick();
      try {
        const [row] = await execute<{ pid: number }>(lane.db, sql`SELECT pg_backend_pid() AS pid, pg_sleep(${ms / 1000})`);
        lane.done();
        return row!.pid;
      } catch (e) {
        lane.done(e);
        throw e;
      }
    }),
  );
}

describe("lanes: statements pipelined on a few reserved connections", () => {
  it("many statements at once run on at most `size` backends; a lost one is replaced", async () => {
    const pool = t.connect({ max: 4 });
    // Two lanes: the pool's four less two (its LISTEN, the statements that are not rounds).
    const lanes = new Lanes(pool, 8);
    // The first picks go on the pool while the two lanes are reserved.
    await burst(lanes, 2);
    await waitFor("two lanes reserved", async () => new Set(await burst(lanes, 4, 1)).size === 2);
    const pids = new Set(await burst(lanes, 16));
    expect(pids.size).toBe(2);

    // One lane's backend terminated: its next statement fails with a lost connection, the lane is
    // dropped, and the ones after run on a newly reserved connection.
    const [gone] = [...pids];
    await execute(t.pool, sql`SELECT pg_terminate_backend(${gone}::int)`);
    const errors: unknown[] = [];
    await waitFor("a new lane in place of the lost one", async () => {
      try {
        const now = new Set(await burst(lanes, 8, 5));
        return now.size === 2 && !now.has(gone!);
      } catch (e) {
        errors.push(e);
        return false;
      }
    });
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every(connectionLost)).toBe(true);

    // Closed, the lanes give their connections back: the pool (four connections) runs four at once.
    lanes.close();
    const after = await Promise.all(
      Array.from({ length: 4 }, () => execute<{ pid: number }>(pool, sql`SELECT pg_backend_pid() AS pid, pg_sleep(0.2)`)),
    );
    expect(new Set(after.map((r) => r[0]!.pid)).size).toBe(4);
  });

  it("a lane pipelines: the statements that waited behind one that could not be are sent together", async () => {
    const pool = t.connect({ max: 3 });
    const lanes = new Lanes(pool, 1);
    await lanes.open();
    const on = (text: ReturnType<typeof sql>) => {
      const lane = lanes.pick();
      return execute<{ i: number }>(lane.db, text).finally(() => lane.done());
    };
    const numbered = (i: number) => on(sql`SELECT ${i}::int AS i`);
    await numbered(0); // prepared on the lane's connection
    // Writes to any socket from here on (nothing else runs meanwhile).
    const write = net.Socket.prototype.write;
    let writes = 0;
    net.Socket.prototype.write = function (this: net.Socket, ...args: Parameters<typeof write>) {
      writes++;
      return write.apply(this, args);
    } as typeof write;
    try {
      // A statement with a parameter, new on this connection, is described before it runs: nothing
      // can be pipelined behind it, and the twenty issued meanwhile wait for it.
      const slow = on(sql`SELECT pg_sleep(0.2), ${-1}::int AS i`);
      const rows = await Promise.all(Array.from({ length: 20 }, (_, i) => numbered(i + 1)));
      await slow;
      expect(rows.map((r) => r[0]!.i)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      // The twenty go out together once it has run (postgres.js, patched: patches/README.md);
      // unpatched, one was sent per round trip, a write each: 22 writes in all.
      expect(writes).toBeLessThan(8);
    } finally {
      net.Socket.prototype.write = write;
      lanes.close();
    }
  });

  it("a statement's own error keeps its lane", async () => {
    expect(connectionLost(Object.assign(new Error("deadlock detected"), { code: "40P01" }))).toBe(false);
    expect(connectionLost(Object.assign(new Error("unique"), { code: "23505" }))).toBe(false);
    expect(connectionLost(new Error("no code"))).toBe(false);
    for (const code of ["CONNECTION_CLOSED", "CONNECTION_DESTROYED", "CONNECT_TIMEOUT", "ECONNRESET", "ECONNREFUSED", "08006", "57P01"])
      expect(connectionLost(Object.assign(new Error(code), { code }))).toBe(true);
  });
});
