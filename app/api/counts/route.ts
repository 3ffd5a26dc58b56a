import { readCounts } from "@/app/_overview/read";
import { consoleRoute } from "@/lib/frame/route";

// Polled live by the overview: never prerendered at build time, never cached.
export const dynamic = "force-dynamic";

export const GET = consoleRoute({
  permission: "jobs:read",
  failed: "Could not count jobs: the database did not answer. Details are in the server log.",
  read: ({ tx, viewer }) => readCounts(tx, viewer),
});
