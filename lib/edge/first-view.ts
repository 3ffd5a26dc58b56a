import { withViewerRead, type Viewer } from "../auth/viewer";
import type { ScopedSql } from "../db/scope";

/**
 * A polled page's first view, read on the server in the viewer's scope as its API answers, and when
 * it was read. Through JSON, so the first view has exactly the shape every poll has. Null when the
 * read failed (logged as `failed`): the page still renders, and the browser's first poll shows why.
 */
export async function firstView<R>(viewer: Viewer, failed: string, read: (tx: ScopedSql) => Promise<unknown>): Promise<{ initial: R | null; readAt: number }> {
  try {
    const answer = await withViewerRead(viewer, read);
    return { initial: JSON.parse(JSON.stringify(answer)) as R, readAt: Date.now() };
  } catch (err) {
    console.error(`${failed}:`, err);
    return { initial: null, readAt: Date.now() };
  }
}
