import { apiError, toResponse } from "@/lib/api/http";

export const dynamic = "force-dynamic";

/** Any other /api/v1 path: the API's JSON error, not the console's HTML 404 page. */
function notFound() {
  return toResponse(apiError(404, "not_found", "No such endpoint: see /api/v1/openapi.json."));
}

export { notFound as GET, notFound as POST, notFound as PUT, notFound as PATCH, notFound as DELETE };
