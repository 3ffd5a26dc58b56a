import { openApiDocument } from "@/lib/api/openapi";

// Public and the same for everyone: no key needed.
export const dynamic = "force-static";

export function GET() {
  return Response.json(openApiDocument(), { headers: { "Cache-Control": "public, max-age=300" } });
}
