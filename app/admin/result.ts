/** What an admin action answers: what was done, or why nothing was. */
export type AdminResult = { ok: true; message: string } | { ok: false; error: { code: AdminErrorCode; message: string } };
export type AdminErrorCode = "forbidden" | "invalid_input" | "refused" | "internal";
