import type { ActorKind } from "../fsm/table";

/**
 * Who may do what: the one place roles and permissions are defined. Pages,
 * route handlers, server actions and the API all ask `can()`; the buttons a
 * page shows are derived from the same answers.
 */
export const ROLES = ["tenant", "support", "operator", "admin"] as const;
export type Role = (typeof ROLES)[number];

export const ROLE_LABELS: Record<Role, string> = {
  tenant: "Tenant member",
  support: "Support",
  operator: "Operator",
  admin: "Admin",
};

const PERMISSIONS = {
  /** Jobs, runs, events, timelines, "why slow": tenants see only their own tenant's. */
  "jobs:read": ["tenant", "support", "operator", "admin"],
  /** Cancel: tenants their own jobs, operators any. */
  "jobs:cancel": ["tenant", "operator", "admin"],
  /** Every operator event of the state machine (replay, retry now, pause, resume, abandon, cancel) and bulk actions. */
  "jobs:operate": ["operator", "admin"],
  /** Cross-tenant insight: overview charts, workers, rejections, dead-job groups, the state machine page. */
  "insight:read": ["support", "operator", "admin"],
  /** The audit log and the integrity check panel. */
  "audit:read": ["operator", "admin"],
  /** Alert rules and their deliveries: staff rules on anything; a tenant's only on its own dead jobs. */
  "alerts:manage": ["tenant", "operator", "admin"],
  /** Users, roles, tenants, every tenant's API keys. */
  "admin:manage": ["admin"],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof PERMISSIONS;
export const PERMISSION_NAMES = Object.keys(PERMISSIONS) as Permission[];

/** The subject of a permission check: a signed-in user or an API key. */
export type Principal = { role: Role; tenantId: string | null };

export function can(p: Principal | null, permission: Permission): boolean {
  if (!p) return false;
  if (p.role === "tenant" && !p.tenantId) return false; // a tenant member without a tenant sees nothing
  return (PERMISSIONS[permission] as readonly Role[]).includes(p.role);
}

/** The state machine's actor kind for a role's actions, or null for read-only roles. */
export function actorKindOf(role: Role): Extract<ActorKind, "tenant" | "operator"> | null {
  if (role === "tenant") return "tenant";
  if (role === "operator" || role === "admin") return "operator";
  return null;
}

/** Tenant members are confined to their tenant; staff see every tenant. */
export function tenantScopeOf(p: Principal): string | null {
  return p.role === "tenant" ? p.tenantId : null;
}
