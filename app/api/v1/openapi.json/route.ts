import { openApiDocument } from "@/lib/api/openapi";

// Public and the same for everyone: no key needed. Rendered per request (it is cheap) so the
// rate limit it states is the running process's, not the build machine's environment.
export const dynamic = "force-dynamic";

export function GET() {
  return Response.json(openApiDocument(), { headers: { "Cache-Control": "public, max-age=300" } });
}
