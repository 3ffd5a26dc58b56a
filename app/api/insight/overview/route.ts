import { readOverview } from "@/app/_overview/read";
import { consoleRoute } from "@/lib/frame/route";
import { parseWindow } from "@/lib/insight/windows";

export const dynamic = "force-dynamic";

/** The overview's charts and tables for one window (app/_overview/read.ts, as the page renders them first). */
export const GET = consoleRoute({
  permission: "insight:read",
  input: (request) => parseWindow(request.nextUrl.searchParams.get("window")),
  failed: "Could not load the overview: the database did not answer. Details are in the server log.",
  read: ({ tx, input: window }) => readOverview(tx, window),
});
