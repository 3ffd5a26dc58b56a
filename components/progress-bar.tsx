/** How far a bulk action or a replay has got: `done` of `total`, red once it failed. */
export function ProgressBar({ label, done, total, isFailed = false }: { label: string; done: number; total: number; isFailed?: boolean }) {
  return (
    <div
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={total}
      aria-valuenow={done}
      className="mt-2 h-2 overflow-hidden rounded-full bg-neutral-100"
    >
      <div
        className={`h-full ${isFailed ? "bg-red-500" : "bg-emerald-500"} transition-[width]`}
        style={{ width: `${total ? (done / total) * 100 : 100}%` }}
      />
    </div>
  );
}
