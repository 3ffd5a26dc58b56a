import type { Metadata } from "next";
import { cookies } from "next/headers";
import Link from "next/link";
import type { ReactNode } from "react";
import { DbStatusBanner } from "@/components/db-status-banner";
import { DriftAlarm } from "@/components/drift-alarm";
import { AccountMenu, MainNav, SkipLink, ThemeSelect } from "@/components/header-controls";
import { Providers } from "@/components/providers";
import { parseTheme, THEME_COOKIE } from "@/components/theme";
import { TimeZoneProvider, TimeZoneSelect } from "@/components/time-zone";
import { can, ROLE_LABELS, type Permission } from "@/lib/auth/permissions";
import { canManageApiKeys } from "@/lib/api/keys";
import { getViewer } from "@/lib/auth/viewer";
import { readViewerTimeZone } from "@/lib/server/time-zone";
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
  { href: "/queues", label: "Queues", permission: "insight:read" },
  { href: "/schedules", label: "Schedules", permission: "insight:read" },
  { href: "/workers", label: "Workers", permission: "insight:read" },
  { href: "/rejections", label: "Rejections", permission: "insight:read" },
  { href: "/alerts", label: "Alerts", permission: "alerts:manage" },
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
  const theme = parseTheme((await cookies()).get(THEME_COOKIE)?.value);
  // Times are shown in the viewer's zone: read here so the server's render and the browser's agree.
  const zone = await readViewerTimeZone();
  return (
    <html lang="en" data-theme={theme === "system" ? undefined : theme}>
      <body className="min-h-screen bg-neutral-50 font-sans text-neutral-900 antialiased">
        <TimeZoneProvider tz={zone.tz} chosen={zone.chosen}>
          <SkipLink />
          <header className="border-b border-neutral-200 bg-white">
            <div className="mx-auto flex min-h-14 max-w-7xl flex-wrap items-center gap-x-5 gap-y-2 px-4 py-2 sm:px-6">
              <Link
                href={viewer?.role === "tenant" ? "/jobs" : "/"}
                className="order-1 flex items-center gap-2 text-base font-semibold tracking-tight"
              >
                <span aria-hidden="true" className="grid size-6 place-items-center rounded-md bg-neutral-900 text-xs text-white">
                  J
                </span>
                Jobscope
              </Link>
              {viewer && (
                <>
                  <MainNav>
                    <ul className="flex flex-col gap-0.5 py-1 text-sm xl:flex-row xl:items-center xl:py-0">
                      {nav.map((item) => (
                        <li key={item.label}>
                          <Link
                            href={item.href}
                            className="block rounded-md px-2.5 py-1.5 font-medium whitespace-nowrap xl:px-1.5 text-neutral-700 hover:bg-neutral-100 hover:text-neutral-900"
                          >
                            {item.label}
                          </Link>
                        </li>
                      ))}
                    </ul>
                  </MainNav>
                  <div className="order-2 ml-auto flex items-center xl:order-3">
                    <AccountMenu name={viewer.name} detail={`${ROLE_LABELS[viewer.role]}${viewer.tenantId ? ` · tenant ${viewer.tenantId}` : ""}`}>
                      <ThemeSelect initial={theme} />
                      <TimeZoneSelect />
                      <form action={signOutAction}>
                        <button
                          type="submit"
                          className="w-full rounded-md border border-neutral-300 bg-white px-2.5 py-1.5 text-sm font-medium text-neutral-700 shadow-xs hover:bg-neutral-50"
                        >
                          Sign out
                        </button>
                      </form>
                    </AccountMenu>
                  </div>
                </>
              )}
            </div>
          </header>
          <Providers>
            <DbStatusBanner />
            {viewer && can(viewer, "insight:read") && <DriftAlarm />}
            <main id="main" tabIndex={-1} className="mx-auto max-w-7xl px-4 py-8 focus:outline-none sm:px-6">
              {children}
            </main>
          </Providers>
        </TimeZoneProvider>
      </body>
    </html>
  );
}
