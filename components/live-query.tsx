import type { ComponentProps } from "react";
import { LoadError } from "./load-error";
import { isFailingOf, type PageHeader } from "./page-header";

/** What a polled page's header and error banner read of its TanStack query. */
type PolledQuery = { data: unknown; dataUpdatedAt: number; errorUpdatedAt: number; error: Error | null; refetch: () => unknown };

/**
 * A polled page's header `live` props: when its data last came, whether it fails (the page's own
 * `isFailing` when it knows more than the query), its pause switch (`useLive`).
 */
export function liveStatus(
  live: { isPaused: boolean; toggle: () => void; pollMs?: number },
  query: PolledQuery,
  { serverNow, isFailing = isFailingOf(query) }: { serverNow?: number; isFailing?: boolean } = {},
): NonNullable<ComponentProps<typeof PageHeader>["live"]> {
  return {
    updatedAt: query.data ? query.dataUpdatedAt : null,
    serverNow,
    isPaused: live.isPaused,
    isFailing,
    onToggle: live.toggle,
    pollMs: live.pollMs,
  };
}

/**
 * A polled page's error banner, shown while its latest answer is a failure: `refreshing` when it
 * still shows earlier data, `loading` when it has none. `message` replaces the query's own error,
 * `isFailing` the query's own failing state.
 */
export function QueryLoadError({
  query,
  refreshing,
  loading,
  message,
  isFailing = isFailingOf(query),
}: {
  query: PolledQuery;
  refreshing: string;
  loading: string;
  message?: string;
  isFailing?: boolean;
}) {
  if (!isFailing) return null;
  return <LoadError title={query.data ? refreshing : loading} message={message ?? query.error?.message} onRetry={() => void query.refetch()} />;
}
