import { TYPE_NAME } from "@/app/types/name";
import type { TypeHistoryResponse } from "@/lib/client/wire";
import { consoleRoute } from "@/lib/frame/route";
import { parseHistoryRange } from "@/lib/metrics/history";
import { typeHistory } from "@/lib/metrics/type-history";
import { AppError } from "@/lib/result";

export const dynamic = "force-dynamic";

/** One job type's history charts over a range (lib/metrics/history.ts), polled by /types/[type]. */
export const GET = consoleRoute<{ type: string }, { type: string; range: ReturnType<typeof parseHistoryRange> }, TypeHistoryResponse>({
  permission: "insight:read",
  input: (request, params) => {
    if (!TYPE_NAME.test(params.type)) throw new AppError("invalid_input", "Not a job type's name.");
    return { type: params.type, range: parseHistoryRange(request.nextUrl.searchParams.get("range")) };
  },
  failed: "Could not load the type's history: the database did not answer. Details are in the server log.",
  read: async ({ tx, input }) => ({
    type: input.type,
    range: input.range,
    points: await typeHistory(tx, input.type, input.range),
    at: new Date().toISOString(),
  }),
});
