import Link from "next/link";

/**
 * Any address that is no page, or a page the viewer's role may not open (they answer 404 alike): in the
 * console's frame and theme, not the framework's own page.
 */
export default function NotFound() {
  return (
    <div className="rounded-lg border border-dashed border-neutral-300 bg-white px-6 py-12 text-center">
      <p className="text-sm font-medium text-neutral-600">404</p>
      <h1 className="mt-1 text-lg font-semibold">No such page</h1>
      <p className="mt-1 text-sm text-neutral-600">The address may be mistyped, or it is a page your role does not open.</p>
      <Link href="/" className="mt-4 inline-block text-sm font-medium text-blue-700 underline">
        Back to the start page
      </Link>
    </div>
  );
}
