/** What every server action on this page answers. */
export type ActionResult<T> = { ok: true; data: T } | { ok: false; error: { code: string; message: string } };
