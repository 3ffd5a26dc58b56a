import type { Role } from "../auth/permissions";

/** The password of every demo user (printed by `npm start`, listed in the README). */
export const DEMO_PASSWORD = "jobscope-demo";

/** One demo user per role, and users of two tenants. `npm start` creates them. */
export const DEMO_USERS = {
  admin: { email: "admin@jobscope.local", name: "Ada Admin", role: "admin", tenantId: null },
  operator: { email: "operator@jobscope.local", name: "Otto Operator", role: "operator", tenantId: null },
  support: { email: "support@jobscope.local", name: "Sam Support", role: "support", tenantId: null },
  acme: { email: "dana@acme.example", name: "Dana (Acme)", role: "tenant", tenantId: "acme" },
  globex: { email: "lee@globex.example", name: "Lee (Globex)", role: "tenant", tenantId: "globex" },
} as const satisfies Record<string, { email: string; name: string; role: Role; tenantId: string | null }>;

export type DemoUser = keyof typeof DEMO_USERS;
