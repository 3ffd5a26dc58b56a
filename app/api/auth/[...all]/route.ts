import { toNextJsHandler } from "better-auth/next-js";
import { auth } from "@/lib/auth/auth";
import { withPasswordScope } from "@/lib/auth/password-work";

export const dynamic = "force-dynamic";

// In a password scope: the sign-in guard marks a known device's sign-in there, and the bounded
// password hashing gives it room a flood of strangers cannot take (lib/auth/password-work.ts).
const handler = (request: Request) => withPasswordScope(() => auth().handler(request));
export const { GET, POST } = toNextJsHandler(handler);
