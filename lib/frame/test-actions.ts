import { sql } from "drizzle-orm";
import { can, type Permission } from "../auth/permissions";
import type { Authorized, Viewer } from "../auth/viewer";
import type { Db } from "../db/client";
import { execute } from "../db/drizzle";

// Server actions under test are called as a crafted POST would call them. Only the session is stood
// in for: a test file mocks the viewer module with
//   vi.mock("@/lib/auth/viewer", async (real) => (await import("../frame/test-actions")).withSession(await real()));
// (imported inside the factory, which vitest runs before the file's own imports) and says who is
// signed in with `signIn`. Who may do what is still the real `can()`.

let signedIn: Viewer | null = null;

/** Who the next action calls come from; null signs out. */
export function signIn(viewer: Viewer | null): void {
  signedIn = viewer;
}

/** The real viewer module, with `authorize` answering for whoever `signIn` named. */
export function withSession<M extends object>(real: M) {
  return {
    ...real,
    authorize: async (permission: Permission): Promise<Authorized> => {
      if (!signedIn) return { ok: false, status: 401, code: "unauthenticated", message: "Sign in to do this.", viewer: null };
      if (!can(signedIn, permission)) return { ok: false, status: 403, code: "forbidden", message: "Your role may not do this.", viewer: signedIn };
      return { ok: true, viewer: signedIn };
    },
  };
}

export const viewer = (role: Viewer["role"], email: string, tenantId: string | null = null): Viewer => ({
  userId: `u-${email}`,
  email,
  name: email,
  role,
  tenantId,
  tenantOwner: false,
});
export const OPERATOR = viewer("operator", "op@jobscope.local");
export const SUPPORT = viewer("support", "support@jobscope.local");
export const ACME = viewer("tenant", "dana@acme.example", "acme");
export const GLOBEX = viewer("tenant", "gil@globex.example", "globex");

/** The newest audit entry. */
export async function lastAudit(db: Db) {
  const [entry] = await execute<{ actor: string; action: string; outcome: string; reason: string; jobIds: string[] }>(
    db,
    sql`SELECT actor, action, outcome, reason, job_ids FROM audit_log ORDER BY id DESC LIMIT 1`,
  );
  if (!entry) throw new Error("the audit log is empty");
  return entry;
}
