"use server";

import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { z } from "zod";
import { auth } from "@/lib/auth/auth";
import { withPasswordScope } from "@/lib/auth/password-work";
import { safeNext } from "@/lib/auth/next-path";

export type SignInState = { error: string | null; email: string };

const Form = z.object({
  email: z.string().trim().min(3).max(200),
  password: z.string().min(1).max(200),
  next: z.string().max(2000).optional(),
});

/** Sign in with email and password; better-auth verifies it and sets the session cookie. */
export async function signInAction(_prev: SignInState, form: FormData): Promise<SignInState> {
  const parsed = Form.safeParse({ email: form.get("email"), password: form.get("password"), next: form.get("next") ?? undefined });
  const email = typeof form.get("email") === "string" ? String(form.get("email")).slice(0, 200) : "";
  if (!parsed.success) return { error: "Enter your email and password.", email };
  let home = "/";
  try {
    const requestHeaders = await headers();
    const res = await withPasswordScope(() =>
      auth().api.signInEmail({ body: { email: parsed.data.email, password: parsed.data.password }, headers: requestHeaders }),
    );
    // Tenant members have no cross-tenant overview: their home is their jobs.
    if ((res.user as { role?: string }).role === "tenant") home = "/jobs";
  } catch (err) {
    // better-auth's APIError (matched by shape: the bundled class need not be the one we import).
    const status = (err as { statusCode?: unknown } | null)?.statusCode;
    if (typeof status === "number" && status >= 400 && status < 500) {
      const message = (err as { message?: unknown }).message;
      if (status === 429)
        return {
          error: typeof message === "string" && message.startsWith("Too many") ? message : "Too many sign-in attempts: wait a minute and try again.",
          email,
        };
      // Deactivated or suspended: said only after the password matched (lib/auth/offboarding.ts).
      if (status === 403 && typeof message === "string") return { error: message.slice(0, 200), email };
      return { error: "That email and password do not match an account.", email };
    }
    // Too many sign-ins being checked at once (lib/auth/password-work.ts): not the person's fault, and short.
    if (status === 503) return { error: "The server is busy checking other sign-ins: try again in a few seconds.", email };
    console.error("sign-in failed:", err);
    return { error: "Could not sign in: the server could not check your password. Try again.", email };
  }
  const next = safeNext(parsed.data.next);
  redirect(next === "/" ? home : next);
}

export async function signOutAction(): Promise<void> {
  try {
    await auth().api.signOut({ headers: await headers() });
  } catch (err) {
    console.error("sign-out failed:", err);
  }
  redirect("/sign-in");
}
