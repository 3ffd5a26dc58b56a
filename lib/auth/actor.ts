import type { Actor } from "../jobs/types";

/**
 * Who is using the console. Until sign-in exists (the identity issue), every
 * request acts as one development operator, named in every event it causes.
 * Server actions and route handlers call this inside the handler, so the
 * identity issue replaces this function and every check follows.
 */
export async function currentActor(): Promise<Actor> {
  return { kind: "operator", id: process.env.JOBSCOPE_DEV_OPERATOR ?? "dev-operator@jobscope.local" };
}
