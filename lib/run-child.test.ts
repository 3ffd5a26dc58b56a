import { mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { waitFor } from "./db/test-wait";
import { keepChild } from "./run-child";

const node = process.execPath;
const scratch = path.resolve(`.data/test-run-child-${process.pid}`);
mkdirSync(scratch, { recursive: true });
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("keepChild", () => {
  it("starts a child again after a SIGKILL and after a clean exit, until stop(); then it stays down", async () => {
    const said: string[] = [];
    // Lives until signalled; exits 0 on SIGTERM, as the web process and a drained worker do. It writes
    // its pid once its handler is in place.
    const ready = path.join(scratch, "ready");
    const script = `process.on('SIGTERM', () => process.exit(0)); require('fs').writeFileSync(${JSON.stringify(ready)}, String(process.pid)); setInterval(() => {}, 1000)`;
    const readyPid = () => {
      try {
        return Number(readFileSync(ready, "utf8"));
      } catch {
        return 0;
      }
    };
    const kept = keepChild("sleeper", node, ["-e", script], {
      log: (l) => said.push(l),
      delays: { firstMs: 50, maxMs: 200 },
    });
    const first = await waitFor("the first start", () => kept.pid(), 20_000);
    process.kill(first, "SIGKILL");
    const second = await waitFor("a restart after SIGKILL", () => kept.pid() !== first && kept.pid(), 20_000);
    await waitFor("the restarted child's SIGTERM handler", () => readyPid() === second, 20_000);
    process.kill(second, "SIGTERM");
    const third = await waitFor("a restart after a clean exit", () => kept.pid() !== second && kept.pid(), 20_000);
    expect(kept.restarts()).toBe(2);
    expect(said.some((l) => l.includes("sleeper exited (SIGKILL): restarting it"))).toBe(true);
    expect(said.some((l) => l.includes("sleeper exited (code 0): restarting it"))).toBe(true);

    await kept.stop("SIGTERM", 5_000);
    expect(alive(third)).toBe(false);
    expect(kept.pid()).toBeNull();
    // Nothing comes back after stop(): a restart is decided (counted, said, its timer set) in the
    // child's exit handler, which has run by the time stop() returns.
    expect(kept.restarts()).toBe(2);
    expect(said.filter((l) => l.includes("restarting it"))).toHaveLength(2);
  });

  it("waits longer between starts while the child keeps dying young, up to the cap", async () => {
    const said: string[] = [];
    const kept = keepChild("crasher", node, ["-e", "process.exit(3)"], { log: (l) => said.push(l), delays: { firstMs: 20, maxMs: 80 } });
    await waitFor("four restarts", () => kept.restarts() >= 4, 20_000);
    await kept.stop();
    const delays = said.filter((l) => l.startsWith("crasher exited (code 3)")).map((l) => Number(/in (\d+) ms/.exec(l)![1]));
    expect(delays.slice(0, 4)).toEqual([20, 40, 80, 80]);
  });
});
