import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { DriftAlarm } from "@/components/drift-alarm";
import { DbStatusBanner } from "@/components/db-status-banner";
import { Providers } from "@/components/providers";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Jobscope", template: "%s · Jobscope" },
  description: "Look inside the job state machine: jobs, attempts, runs and events.",
};

// Sections are added here as their pages land (workers, rejections next).
const NAV = [
  { href: "/", label: "Overview" },
  { href: "/jobs", label: "Jobs" },
  { href: "/dead", label: "Dead jobs" },
] as const;

export default function RootLayout({ children }: { children: ReactNode }) {
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
          <div className="mx-auto flex h-14 max-w-6xl items-center gap-8 px-4 sm:px-6">
            <Link href="/" className="flex items-center gap-2 text-base font-semibold tracking-tight">
              <span aria-hidden="true" className="grid size-6 place-items-center rounded-md bg-neutral-900 text-xs text-white">
                J
              </span>
              Jobscope
            </Link>
            <nav aria-label="Main">
              <ul className="flex items-center gap-1 text-sm">
                {NAV.map((item) => (
                  <li key={item.label}>
                    <Link
                      href={item.href}
                      className="rounded-md px-3 py-1.5 font-medium text-neutral-600 hover:bg-neutral-100 hover:text-neutral-900"
                    >
                      {item.label}
                    </Link>
                  </li>
                ))}
              </ul>
            </nav>
          </div>
        </header>
        <Providers>
          <DbStatusBanner />
          <DriftAlarm />
          <main id="main" className="mx-auto max-w-6xl px-4 py-8 sm:px-6">
            {children}
          </main>
        </Providers>
      </body>
    </html>
  );
}
