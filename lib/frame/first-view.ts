import "server-only";
import { withViewerRead, type Viewer } from "../auth/viewer";
import type { Tx } from "../db/client";

/**
 * The first view of a polled page that lists one thing (`/queues` lists the queues), read on the
 * server in the viewer's scope as its API answers — `{ [key]: the list, at }` — and when it was read.
 * Through JSON, so the first view has exactly the shape every poll has. Null when the read failed
 * (logged): the page still renders, and the browser's first poll shows why.
 */
export async function firstView<R extends { at: string }>(
  viewer: Viewer,
  key: Exclude<keyof R, "at"> & string,
  list: (tx: Tx) => Promise<unknown>,
): Promise<{ initial: R | null; readAt: number }> {
  try {
    const answer = await withViewerRead(viewer, async (tx) => ({ [key]: await list(tx), at: new Date().toISOString() }));
    return { initial: JSON.parse(JSON.stringify(answer)) as R, readAt: Date.now() };
  } catch (err) {
    console.error(`/${key}: could not list ${key}:`, err);
    return { initial: null, readAt: Date.now() };
  }
}
