import { numbers, plural } from "@/components/numbers";
import { ResultLink } from "@/app/jobs/_components/result-link";
import { ProgressBar } from "@/components/progress-bar";
import type { BulkProgressWire } from "@/lib/client/wire";
import { refusalWords } from "@/app/jobs/_components/refusals";

/** A running replay's progress, then its result: applied, and refused by kind with one reason each. */
export function ReplayResult({
  expected,
  progress,
  error,
  operationId,
  onlyJobId,
}: {
  expected: number;
  progress: BulkProgressWire | undefined;
  error: Error | null;
  operationId: string;
  /** The one job replayed, when it was one: the result links to it instead of to the operation's list. */
  onlyJobId: string | null;
}) {
  if (!progress) {
    return error ? (
      <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-900">
        Could not read the replay&apos;s progress: {error.message}
      </p>
    ) : (
      <p role="status" className="text-sm text-neutral-600">
        Starting the replay…
      </p>
    );
  }
  const { status, total, done, applied, refused } = progress;
  const isRunning = status === "running";
  return (
    <section aria-label="Replay result" className="space-y-3 text-sm">
      <div>
        <div className="flex justify-between text-neutral-600">
          <span role="status">{isRunning ? "Replaying…" : status === "failed" ? "The replay stopped with an error." : "Replay finished."}</span>
          <span className="tabular-nums">
            {numbers.format(done)} of {numbers.format(total)}
          </span>
        </div>
        <ProgressBar label="Replay progress" done={done} total={total} isFailed={status === "failed"} />
      </div>
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1">
        <dt className="text-neutral-600">Applied</dt>
        <dd className="font-semibold tabular-nums" aria-label={`applied: ${applied}`}>
          {numbers.format(applied)}
          {!isRunning && applied !== expected && (
            <span className="ml-2 font-normal text-neutral-600">of {numbers.format(expected)} in the dry run</span>
          )}
        </dd>
        <dt className="text-neutral-600">Refused</dt>
        <dd className="tabular-nums">{numbers.format(refused.reduce((n, r) => n + r.count, 0))}</dd>
      </dl>
      {refused.length > 0 && (
        <ul aria-label="Refused" className="space-y-1.5">
          {refused.map((r) => (
            <li key={r.kind} className="rounded-md bg-amber-50 px-3 py-2 text-amber-950">
              <span className="font-medium">
                {plural(r.count, "job")} refused — {refusalWords(r.kind)}
              </span>
              {r.sampleReason && <span className="mt-0.5 block text-xs break-words text-amber-900">e.g. {r.sampleReason}</span>}
            </li>
          ))}
        </ul>
      )}
      {isRunning && <p className="text-neutral-600">The replay goes on if you close this.</p>}
      <ResultLink operationId={operationId} onlyJobId={onlyJobId} total={total} />
    </section>
  );
}
