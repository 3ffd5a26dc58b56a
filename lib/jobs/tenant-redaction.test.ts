import { NextRequest } from "next/server";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { Viewer } from "../auth/viewer";
import { setupTestDb } from "../db/test-db";
import { newJob, runJob, worker } from "./test-helpers";
import { transition } from "./transition";

// The console's JSON routes as a tenant member reads them, against a real database: the machinery's
// names (workers, lease owners, the supervisor, staff e-mail addresses) never leave the server,
// whichever route a tenant's browser polls. Only the session is stood in for.
let signedIn: Viewer | null = null;
vi.mock("@/lib/auth/viewer", async (importOriginal) => ({
  ...(await importOriginal<typeof import("@/lib/auth/viewer")>()),
  authorize: async () =>
    signedIn ? { ok: true, viewer: signedIn } : { ok: false, status: 401, code: "unauthenticated", message: "Sign in.", viewer: null },
}));

const ACME: Viewer = { userId: "u-acme", email: "dana@acme.example", name: "Dana", role: "tenant", tenantId: "acme", tenantOwner: false };
const SUPPORT: Viewer = { userId: "u-s", email: "support@jobscope.local", name: "Sam", role: "support", tenantId: null, tenantOwner: false };
const WORKER = "w-hidden-3";
const STAFF = "staff.person@jobscope.example";

const db = setupTestDb({ consolePool: true });
let routes: { list: typeof import("@/app/api/jobs/route"); detail: typeof import("@/app/api/jobs/[id]/route") };
let jobId = "";

beforeAll(async () => {
  routes = { list: await import("@/app/api/jobs/route"), detail: await import("@/app/api/jobs/[id]/route") };
  const job = await newJob(db.pool, { tenantId: "acme", maxAttempts: 3 });
  const running = await runJob(db.pool, job, WORKER);
  const failed = await transition(db.pool, {
    jobId: job.id,
    event: "fail",
    actor: worker(WORKER),
    attempt: running.attempt,
    error: { class: "UpstreamTimeout", message: "timed out" },
    retryAt: new Date(Date.now() + 3_600_000),
  });
  if (!failed.ok) throw new Error(failed.reason);
  const abandoned = await transition(db.pool, { jobId: job.id, event: "abandon", actor: { kind: "operator", id: STAFF } });
  if (!abandoned.ok) throw new Error(abandoned.reason);
  jobId = job.id;
});

const read = async (viewer: Viewer, url: string, call: (r: NextRequest) => Promise<Response>) => {
  signedIn = viewer;
  const res = await call(new NextRequest(url));
  expect(res.status).toBe(200);
  return JSON.stringify(await res.json());
};

describe("one redaction for everything a tenant member reads", () => {
  it("the jobs list and the job's detail name no worker or staff member for a tenant; staff still see them", async () => {
    const list = (r: NextRequest) => routes.list.GET(r, { params: Promise.resolve({}) });
    const detail = (r: NextRequest) => routes.detail.GET(r, { params: Promise.resolve({ id: jobId }) });
    const tenantList = await read(ACME, "http://localhost/api/jobs?state=dead", list);
    const tenantDetail = await read(ACME, `http://localhost/api/jobs/${jobId}`, detail);
    expect(tenantList).toContain(jobId);
    for (const text of [tenantList, tenantDetail]) {
      expect(text).not.toContain(WORKER);
      expect(text).not.toContain(STAFF);
    }
    const staffList = await read(SUPPORT, "http://localhost/api/jobs?state=dead&tenant=acme", list);
    const staffDetail = await read(SUPPORT, `http://localhost/api/jobs/${jobId}`, detail);
    expect(staffList).toContain(WORKER);
    expect(staffDetail).toContain(STAFF);
  });
});
