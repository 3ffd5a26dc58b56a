import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closePool, closeReadPool, pool, readPool } from "./client";
import { createTestDb, type TestDb } from "./test-db";

let primary: TestDb;
let replica: TestDb;
const saved = { url: process.env.DATABASE_URL, read: process.env.DATABASE_READ_URL };

beforeAll(async () => {
  [primary, replica] = await Promise.all([createTestDb(), createTestDb()]);
});
afterAll(async () => {
  await closeReadPool();
  await closePool();
  process.env.DATABASE_URL = saved.url;
  if (saved.read === undefined) delete process.env.DATABASE_READ_URL;
  else process.env.DATABASE_READ_URL = saved.read;
  await Promise.all([primary?.close(), replica?.close()]);
});

const dbName = async (sql: ReturnType<typeof pool>) => (await sql<{ d: string }[]>`SELECT current_database() AS d`)[0]!.d;

describe("the read pool (DATABASE_READ_URL)", () => {
  it("is the primary while no read URL is set, and the replica's database once it is", async () => {
    process.env.DATABASE_URL = primary.url;
    delete process.env.DATABASE_READ_URL;
    const primaryName = await dbName(pool());
    expect(await dbName(readPool())).toBe(primaryName);
    process.env.DATABASE_READ_URL = replica.url;
    const replicaName = await dbName(readPool());
    expect(replicaName).not.toBe(primaryName);
    expect(replicaName).toBe(await dbName(replica.sql));
    // Writes and guarded reads keep using the primary.
    expect(await dbName(pool())).toBe(primaryName);
  });
});
