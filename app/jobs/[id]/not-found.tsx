import Link from "next/link";

export default function JobNotFound() {
  return (
    <div className="rounded-lg border border-dashed border-neutral-300 bg-white px-6 py-12 text-center">
      <h1 className="text-lg font-semibold">No such job</h1>
      <p className="mt-1 text-sm text-neutral-600">The link may be wrong, or the job id mistyped.</p>
      <Link href="/jobs" className="mt-4 inline-block text-sm font-medium text-blue-700 underline">
        Back to jobs
      </Link>
    </div>
  );
}
