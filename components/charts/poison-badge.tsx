/** Marks a poison suspect: a job whose attempts repeatedly ended with an expired lease (it kills or hangs its workers). */
export function PoisonBadge({ losses }: { losses: number }) {
  return (
    <span
      title={`${losses} attempts ended with an expired lease: this job may be killing its workers`}
      className="inline-flex items-center rounded-full bg-orange-100 px-2 py-0.5 text-xs font-medium text-orange-900 ring-1 ring-orange-600/30 ring-inset"
    >
      poison
    </span>
  );
}
