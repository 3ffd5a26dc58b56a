/** Marks a poison suspect: a job blamed for repeated worker crashes (lib/jobs/poison.ts). Staff only: a tenant is not shown the machinery. */
export function PoisonBadge({ crashes }: { crashes: number }) {
  return (
    <span
      title={`Blamed for ${crashes} worker crashes: this job may be killing its workers`}
      className="inline-flex items-center rounded-full bg-orange-100 px-2 py-0.5 text-xs font-medium text-orange-900 ring-1 ring-orange-600/30 ring-inset"
    >
      poison
    </span>
  );
}
