import Link from "next/link";

export function EmptyState({ filtered }: { filtered: boolean }) {
  return (
    <div className="rounded-lg border border-dashed border-neutral-300 bg-white px-6 py-10 text-center">
      <p className="font-medium">{filtered ? "No jobs match these filters" : "No jobs yet"}</p>
      <p className="mt-1 text-sm text-neutral-600">
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
