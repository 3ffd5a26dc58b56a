import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { DbStatusBanner } from "@/components/db-status-banner";
import { DriftAlarm } from "@/components/drift-alarm";
import { Providers } from "@/components/providers";
import { can, ROLE_LABELS, type Permission } from "@/lib/auth/permissions";
import { canManageApiKeys } from "@/lib/api/keys";
import { getViewer } from "@/lib/auth/viewer";
import { signOutAction } from "./sign-in/actions";
import "./globals.css";

// Every page depends on who is signed in: nothing is rendered at build time.
export const dynamic = "force-dynamic";

export const metadata: Metadata = {
  title: { default: "Jobscope", template: "%s · Jobscope" },
  description: "Look inside the job state machine: jobs, attempts, runs and events.",
};

// Each section is listed only for the roles that may open it; the page checks again on the server.
const NAV: { href: string; label: string; permission: Permission }[] = [
  { href: "/", label: "Overview", permission: "insight:read" },
  { href: "/jobs", label: "Jobs", permission: "jobs:read" },
  { href: "/dead", label: "Dead jobs", permission: "insight:read" },
  { href: "/workers", label: "Workers", permission: "insight:read" },
  { href: "/rejections", label: "Rejections", permission: "insight:read" },
  { href: "/state-machine", label: "State machine", permission: "insight:read" },
  { href: "/audit", label: "Audit", permission: "audit:read" },
  { href: "/integrity", label: "Integrity", permission: "audit:read" },
  { href: "/admin", label: "Admin", permission: "admin:manage" },
];

export default async function RootLayout({ children }: { children: ReactNode }) {
  // With the database down the frame still renders (and its outage banner); the page then says why.
  const viewer = await getViewer().catch((err: unknown) => {
    console.error("layout: could not read the session:", err instanceof Error ? err.message : err);
    return null;
  });
  const nav = viewer ? NAV.filter((item) => can(viewer, item.permission)) : [];
  if (viewer && canManageApiKeys(viewer)) nav.push({ href: "/api-keys", label: "API keys", permission: "jobs:read" });
  return (
    <html lang="en">
      <body className="min-h-screen bg-neutral-50 font-sans text-neutral-900 antialiased">
        <a
          href="#main"
          className="sr-only focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50 focus:rounded-md focus:bg-white focus:px-3 focus:py-2 focus:text-sm focus:font-medium focus:shadow"
        >
          Skip to content
        </a>
        <header className="border-b border-neutral-200 bg-white">
          <div className="mx-auto flex min-h-14 max-w-6xl flex-wrap items-center gap-x-6 gap-y-1 px-4 py-2 sm:px-6">
            <Link href={viewer?.role === "tenant" ? "/jobs" : "/"} className="flex items-center gap-2 text-base font-semibold tracking-tight">
              <span aria-hidden="true" className="grid size-6 place-items-center rounded-md bg-neutral-900 text-xs text-white">
                J
              </span>
              Jobscope
            </Link>
            <nav aria-label="Main">
              <ul className="flex flex-wrap items-center gap-0.5 text-sm">
                {nav.map((item) => (
                  <li key={item.label}>
                    <Link
                      href={item.href}
                      className="rounded-md px-2.5 py-1.5 font-medium text-neutral-600 hover:bg-neutral-100 hover:text-neutral-900"
                    >
                      {item.label}
                    </Link>
                  </li>
                ))}
              </ul>
            </nav>
            {viewer && (
              <div className="ml-auto flex items-center gap-3 text-sm">
                <span className="text-right leading-tight" data-testid="signed-in-as">
                  <span className="block font-medium text-neutral-900">{viewer.name}</span>
                  <span className="block text-xs text-neutral-500">
                    {ROLE_LABELS[viewer.role]}
                    {viewer.tenantId ? ` · ${viewer.tenantId}` : ""}
                  </span>
                </span>
                <form action={signOutAction}>
                  <button
                    type="submit"
                    className="rounded-md border border-neutral-300 bg-white px-2.5 py-1 text-xs font-medium text-neutral-700 shadow-xs hover:bg-neutral-50"
                  >
                    Sign out
                  </button>
                </form>
              </div>
            )}
          </div>
        </header>
        <Providers>
          <DbStatusBanner />
          {viewer && can(viewer, "insight:read") && <DriftAlarm />}
          <main id="main" className="mx-auto max-w-6xl px-4 py-8 sm:px-6">
            {children}
          </main>
        </Providers>
      </body>
    </html>
  );
}
