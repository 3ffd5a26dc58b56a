/**
 * A polled page's "could not load / could not refresh" banner with a retry.
 * `title` says what failed in the page's words; `message` is the error's own.
 * `retryClassName` adds to the retry button's classes.
 */
export function LoadError({
  title,
  message,
  onRetry,
  retryClassName,
}: {
  title: string;
  message: string | undefined;
  onRetry: () => void;
  retryClassName?: string;
}) {
  return (
    <div role="alert" className="flex flex-wrap items-start justify-between gap-3 rounded-lg border border-red-200 bg-red-50 p-4">
      <div className="text-sm">
        <p className="font-medium text-red-900">{title}</p>
        <p className="mt-1 text-red-800">{message}</p>
      </div>
      <button
        type="button"
        onClick={onRetry}
        className={`rounded-md border border-red-300 bg-white px-3 py-1.5 text-sm font-medium text-red-900 hover:bg-red-100${
          retryClassName ? ` ${retryClassName}` : ""
        }`}
      >
        Try again
      </button>
    </div>
  );
}
