import Link from "next/link";

export function LoadError({ message, hasData, onRetry }: { message: string; hasData: boolean; onRetry: () => void }) {
  return (
    <div role="alert" className="flex flex-wrap items-start justify-between gap-3 rounded-lg border border-red-200 bg-red-50 p-4">
      <div className="text-sm">
        <p className="font-medium text-red-900">
          {hasData ? "Could not refresh the list; showing the last jobs received." : "Could not load the jobs."}
        </p>
        <p className="mt-1 text-red-800">{message}</p>
      </div>
      <button
        type="button"
        onClick={onRetry}
        className="rounded-md border border-red-300 bg-white px-3 py-1.5 text-sm font-medium text-red-900 hover:bg-red-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-900"
      >
        Try again
      </button>
    </div>
  );
}

export function EmptyState({ filtered }: { filtered: boolean }) {
  return (
    <div className="rounded-lg border border-dashed border-neutral-300 bg-white px-6 py-10 text-center">
      <p className="font-medium">{filtered ? "No jobs match these filters" : "No jobs yet"}</p>
      <p className="mt-1 text-sm text-neutral-500">
        {filtered ? (
          <Link href="/jobs" prefetch={false} className="text-sky-700 underline underline-offset-2">
            Clear every filter
          </Link>
        ) : (
          "Jobs appear here as soon as they are submitted."
        )}
      </p>
    </div>
  );
}

export function LoadingRows() {
  return (
    <div role="status" aria-label="Loading jobs" className="space-y-2 rounded-lg border border-neutral-200 bg-white p-4">
      {Array.from({ length: 6 }, (_, i) => (
        <div key={i} aria-hidden="true" className="h-6 rounded bg-neutral-100 motion-safe:animate-pulse" />
      ))}
    </div>
  );
}
