import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { waitFor } from "./test-wait";
import { advertiseUrl, importWithoutExitHooks, passwordFileFor, startEmbeddedPostgres, urlFileFor, type EmbeddedServer } from "./embedded";
import { sql } from "drizzle-orm";
import { execute } from "./drizzle";
import { closeDb, connect } from "./client";

// Under .data like every embedded server: run as root, the server's own user must be able to reach it.
const scratch = path.resolve(`.data/test-embedded-${process.pid}`);
mkdirSync(scratch, { recursive: true });
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const mode = (file: string) => statSync(file).mode & 0o777;

async function canSignIn(url: string): Promise<boolean> {
  const db = connect(url, { max: 1, connectTimeout: 5 });
  try {
    await execute(db, sql`SELECT 1`);
    return true;
  } catch {
    return false;
  } finally {
    await closeDb(db, 1);
  }
}

const withPassword = (url: string, password: string) => Object.assign(new URL(url), { password }).toString();

/** The server signs in with its own random password, kept 0600, and no longer with the old constant; then it stops. */
async function expectOwnPassword(server: EmbeddedServer, dataDir: string) {
  try {
    const password = new URL(server.adminUrl).password;
    expect(password).toMatch(/^[0-9a-f]{48}$/);
    expect(readFileSync(passwordFileFor(dataDir), "utf8")).toBe(password);
    expect(mode(passwordFileFor(dataDir))).toBe(0o600);
    expect(await canSignIn(withPassword(server.adminUrl, "jobscope"))).toBe(false);
    expect(await canSignIn(server.adminUrl)).toBe(true);
  } finally {
    await server.stop();
  }
}

describe("embedded PostgreSQL", () => {
  it("loads without taking over the process's exit (which turned failing test runs green)", async () => {
    const events = ["exit", "beforeExit", "SIGINT", "SIGTERM", "message"] as const;
    const before = events.map((e) => process.listenerCount(e));
    const EmbeddedPostgres = await importWithoutExitHooks();
    expect(typeof EmbeddedPostgres).toBe("function");
    expect(events.map((e) => process.listenerCount(e))).toEqual(before);
  });

  it("gets a superuser password of its own, kept 0600 beside the data, not a constant", async () => {
    const dataDir = path.join(scratch, "fresh");
    const server = await startEmbeddedPostgres({ dataDir, fresh: true });
    await expectOwnPassword(server, dataDir);
  }, 120_000);

  it("replaces the old constant password of an existing installation when it starts", async () => {
    const dataDir = path.join(scratch, "legacy");
    // An older installation: the constant password, no password file.
    const EmbeddedPostgres = await importWithoutExitHooks();
    const old = new EmbeddedPostgres({
      databaseDir: dataDir,
      port: 0,
      user: "postgres",
      password: "jobscope",
      persistent: true,
      createPostgresUser: process.getuid?.() === 0,
      initdbFlags: ["--encoding=UTF8", "--locale=C"],
      onLog: () => {},
      onError: () => {},
    });
    await old.initialise();
    await expectOwnPassword(await startEmbeddedPostgres({ dataDir }), dataDir);
  }, 120_000);

  it("with keepAlive, comes back on the same port and data after its postmaster is SIGKILLed, and again after a crash of every server process", async () => {
    const dataDir = path.join(scratch, "kept");
    const said: string[] = [];
    const server = await startEmbeddedPostgres({ dataDir, fresh: true, keepAlive: { say: (l) => said.push(l) } });
    const db = connect(server.adminUrl, { max: 1, connectTimeout: 5 });
    const answers = async () => {
      try {
        return (await execute<{ n: number }>(db, sql`SELECT n FROM kept`))[0]?.n ?? null;
      } catch {
        return null;
      }
    };
    const backWithData = (restarts: number) =>
      waitFor(
        `the server back with its data after restart ${restarts}`,
        async () => server.restarts?.() === restarts && (await answers()) === 42,
        60_000,
      ).catch((e: Error) => {
        throw new Error(`${e.message} (restarts ${server.restarts?.()}; said ${said.join(" | ")})`);
      });
    try {
      await execute(db, sql`CREATE TABLE kept (n int)`);
      await execute(db, sql`INSERT INTO kept VALUES (42)`);
      const pidOf = () => Number(readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
      const first = pidOf();
      // The postmaster alone: its backends are orphaned and exit on their own; the restart waits for them.
      process.kill(first, "SIGKILL");
      await backWithData(1);
      expect(pidOf()).not.toBe(first);
      // Every server process at once, mid-use: crash recovery from the WAL.
      await server.crash();
      await backWithData(2);
      expect(said.filter((l) => l.startsWith("PostgreSQL is back"))).toHaveLength(2);
    } finally {
      await closeDb(db, 1);
      await server.stop();
    }
    // Stopped on purpose: it stays down. The watcher hears the postmaster's exit before stop()
    // returns (its listener is older than stop's), so a restart it decided on would be said by now.
    expect(said.filter((l) => l.startsWith("PostgreSQL exited"))).toHaveLength(2);
    expect(server.restarts?.()).toBe(2);
  }, 180_000);

  it("advertises its URL in a file only the owner can read, even over a world-readable one", () => {
    const dataDir = path.join(scratch, "advertised");
    writeFileSync(urlFileFor(dataDir), "old", { mode: 0o644 });
    advertiseUrl(dataDir, "postgres://postgres:secret@127.0.0.1:1/jobscope");
    expect(mode(urlFileFor(dataDir))).toBe(0o600);
    expect(readFileSync(urlFileFor(dataDir), "utf8")).toContain("secret");
  });
});
