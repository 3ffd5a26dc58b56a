"use client";

import { useQueryClient, type QueryKey } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useCallback, useState, useTransition } from "react";
import type { ErrorBody, Result } from "@/lib/result";

/**
 * What an action changed, to show it at once instead of at the next poll: the TanStack Query keys
 * it changed (a prefix invalidates everything under it), and `refresh` when the page renders its
 * data on the server (router.refresh re-renders it).
 */
export type Changes = { invalidate?: readonly QueryKey[]; refresh?: boolean };

/** Refresh what an action changed (see Changes). */
export function useRefresh({ invalidate, refresh }: Changes): () => Promise<void> {
  const client = useQueryClient();
  const router = useRouter();
  // The keys are constants at each call site; their text keeps the callback stable across renders.
  const keys = JSON.stringify(invalidate ?? []);
  return useCallback(async () => {
    if (refresh) router.refresh();
    await Promise.all((JSON.parse(keys) as QueryKey[]).map((queryKey) => client.invalidateQueries({ queryKey })));
  }, [client, router, keys, refresh]);
}

const UNREACHABLE = "The server did not answer. Nothing may have changed: reload the page to see what is stored.";

/**
 * THE way a client component calls a server action: run it, keep its answer to show (a thrown
 * call, the network gone, is an answer too), and once it applied, refresh what it changed.
 */
export function useAction<I, T, E extends ErrorBody = ErrorBody>(action: (input: I) => Promise<Result<T, E>>, changes: Changes = {}) {
  const refreshChanged = useRefresh(changes);
  const [result, setResult] = useState<Result<T, E> | null>(null);
  const [pending, startTransition] = useTransition();
  const run = (input: I, onApplied?: (data: T) => void) =>
    startTransition(async () => {
      let r: Result<T, E>;
      try {
        r = await action(input);
      } catch {
        // An action's own error type only adds fields to the one error body (a job's current state, a field's issues).
        r = { ok: false, error: { code: "internal", message: UNREACHABLE } as E };
      }
      setResult(r);
      if (r.ok) {
        onApplied?.(r.data);
        await refreshChanged();
      }
    });
  return { result, pending, run, clear: () => setResult(null) };
}

/** The answer of the last action, announced to screen readers. */
export function ResultNote({ result }: { result: Result<unknown> | null }) {
  if (!result) return null;
  return result.ok ? (
    <p role="status" className="rounded-md border border-emerald-200 bg-emerald-50 px-3 py-2 text-sm text-emerald-900">
      {result.message}
    </p>
  ) : (
    <p role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-900">
      {result.error.message}
    </p>
  );
}

/** Under a row's buttons: why the last click changed nothing (a success shows in the row itself). */
export function RowFailure({ result }: { result: Result<unknown> | null }) {
  if (!result || result.ok) return null;
  return (
    <div className="max-w-xs text-left">
      <ResultNote result={result} />
    </div>
  );
}
