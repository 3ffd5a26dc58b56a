/**
 * What a console page shows while the server reads its first data (each segment's loading.tsx):
 * the page's title at once, a status line for screen readers, and grey blocks in the shape of what
 * is coming, so that nothing jumps when it arrives. The title is not a heading: the page's own
 * heading replaces it, and a heading that is there before the page is would answer too early to
 * anyone (or any test) waiting for the page.
 */
export function PageLoading({ title, what, shape = "table" }: { title: string; what: string; shape?: "table" | "job" | "charts" }) {
  return (
    <div className="space-y-6" aria-busy="true">
      <div>
        <p className="text-2xl font-semibold tracking-tight">{title}</p>
        <p role="status" className="mt-1 text-sm text-neutral-600">
          Loading {what}…
        </p>
      </div>
      <div aria-hidden="true" className="space-y-6">
        {shape === "table" && <TableBlocks />}
        {shape === "job" && <JobBlocks />}
        {shape === "charts" && <ChartBlocks />}
      </div>
    </div>
  );
}

const BLOCK = "rounded bg-neutral-100 motion-safe:animate-pulse";
const CARD = "rounded-lg border border-neutral-200 bg-white shadow-xs";

/** A bar of filters, then a framed table of rows. */
function TableBlocks() {
  return (
    <>
      <div className="flex flex-wrap gap-2">
        {[24, 20, 28, 16].map((w) => (
          <div key={w} className={`h-8 ${BLOCK}`} style={{ width: `${w * 4}px` }} />
        ))}
      </div>
      <div className={CARD}>
        <div className="h-10 rounded-t-lg border-b border-neutral-200 bg-neutral-50" />
        <div className="divide-y divide-neutral-100">
          {Array.from({ length: 8 }, (_, i) => (
            <div key={i} className="flex items-center gap-4 px-3 py-3">
              <div className={`h-4 w-20 ${BLOCK}`} />
              <div className={`h-4 flex-1 ${BLOCK}`} />
              <div className={`h-4 w-24 ${BLOCK}`} />
              <div className={`hidden h-4 w-16 sm:block ${BLOCK}`} />
            </div>
          ))}
        </div>
      </div>
    </>
  );
}

/** A job's header card, its timeline, and the cards below. */
function JobBlocks() {
  return (
    <>
      <div className={`${CARD} space-y-3 p-5`}>
        <div className={`h-6 w-72 max-w-full ${BLOCK}`} />
        <div className={`h-4 w-96 max-w-full ${BLOCK}`} />
        <div className="flex gap-2 pt-2">
          {[0, 1, 2].map((i) => (
            <div key={i} className={`h-8 w-20 ${BLOCK}`} />
          ))}
        </div>
      </div>
      <div className={`${CARD} p-5`}>
        <div className={`h-28 ${BLOCK}`} />
      </div>
      <div className="grid gap-6 lg:grid-cols-2">
        {[0, 1].map((i) => (
          <div key={i} className={`${CARD} h-48 p-5`}>
            <div className={`h-full ${BLOCK}`} />
          </div>
        ))}
      </div>
    </>
  );
}

/** Range links, then chart cards. */
function ChartBlocks() {
  return (
    <>
      <div className="flex gap-2">
        {[0, 1, 2].map((i) => (
          <div key={i} className={`h-8 w-16 ${BLOCK}`} />
        ))}
      </div>
      <div className="grid gap-6 lg:grid-cols-2">
        {[0, 1, 2, 3].map((i) => (
          <div key={i} className={`${CARD} p-5`}>
            <div className={`mb-4 h-5 w-40 ${BLOCK}`} />
            <div className={`h-48 ${BLOCK}`} />
          </div>
        ))}
      </div>
    </>
  );
}
