"use client";

import { useQueryClient, type QueryKey } from "@tanstack/react-query";
import { useState, useTransition } from "react";
import { ResultNote } from "@/app/admin/use-admin-action";
import type { Result } from "@/lib/result";

/**
 * Run an operator's settings action, keep its answer to show, and refresh the polled data it
 * changed (`refresh`: the query keys to invalidate) once it applied.
 */
export function useOperate<I, T>(action: (input: I) => Promise<Result<T>>, refresh: QueryKey) {
  const client = useQueryClient();
  const [result, setResult] = useState<Result<T> | null>(null);
  const [pending, startTransition] = useTransition();
  const run = (input: I, onApplied?: (data: T) => void) =>
    startTransition(async () => {
      let r: Result<T>;
      try {
        r = await action(input);
      } catch {
        r = {
          ok: false,
          error: { code: "internal", message: "The server did not answer. Nothing may have changed: the page shows what is stored." },
        };
      }
      setResult(r);
      if (r.ok) {
        onApplied?.(r.data);
        await client.invalidateQueries({ queryKey: refresh });
      }
    });
  return { result, pending, run, clear: () => setResult(null) };
}

// The answer's note is the admin pages' (both are a Result).
export { ResultNote };

/** Under a row's buttons: why the last click changed nothing (a success shows in the row itself). */
export function RowFailure({ result }: { result: Result<unknown> | null }) {
  if (!result || result.ok) return null;
  return (
    <div className="max-w-xs text-left">
      <ResultNote result={result} />
    </div>
  );
}
