"use client";

import { PageError } from "@/components/page-error";
import { Providers } from "@/components/providers";
import "./globals.css";

/**
 * When the root layout itself fails, this replaces it (with its own html and body): the same answer
 * as app/error.tsx, in the system's theme (the layout that reads the chosen one is what failed).
 */
export default function GlobalError({ error, retry }: { error: Error & { digest?: string }; retry: () => void }) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-neutral-50 font-sans text-neutral-900 antialiased">
        <Providers>
          <main className="mx-auto max-w-7xl px-4 py-8 sm:px-6">
            <PageError digest={error.digest} retry={retry} />
          </main>
        </Providers>
      </body>
    </html>
  );
}
