import Link from "next/link";
import type { ReactNode } from "react";

/** Where a page sits: a link up to the list it belongs to (`href`, `label`), then the page itself. */
export function Breadcrumb({ href, label, children }: { href: string; label: string; children: ReactNode }) {
  return (
    <nav aria-label="Breadcrumb" className="text-sm text-neutral-600">
      <Link href={href} className="hover:text-neutral-900 hover:underline">
        {label}
      </Link>
      <span aria-hidden="true" className="px-2">
        /
      </span>
      {children}
    </nav>
  );
}
