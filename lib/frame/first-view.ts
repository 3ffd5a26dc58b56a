import "server-only";
import { withViewerRead, type Viewer } from "../auth/viewer";
import type { Tx } from "../db/client";

/**
 * THE first view of a polled page: read on the server in the viewer's scope, exactly as its GET
 * route answers (`read`'s fields and `at`), and when it was read. The page hands both to its
 * client view, whose TanStack query starts from them (`initialData`, `initialDataUpdatedAt`) and
 * then polls the route. Through JSON, so the first view has exactly the shape every poll has.
 * Null when the read failed (logged as `page`'s): the page still renders, and the browser's first
 * poll shows why.
 */
export async function firstView<R extends { at: string }>(
  viewer: Viewer,
  page: string,
  // Before JSON: Dates still Dates, so not typed as R's fields; the route handler's type is R.
  read: (tx: Tx) => Promise<object>,
): Promise<{ initial: R | null; renderedAt: number }> {
  try {
    const answer = await withViewerRead(viewer, async (tx) => ({ ...(await read(tx)), at: new Date().toISOString() }));
    return { initial: JSON.parse(JSON.stringify(answer)) as R, renderedAt: Date.now() };
  } catch (err) {
    console.error(`${page}: could not read the first view:`, err);
    return { initial: null, renderedAt: Date.now() };
  }
}
