"use client";

import { PageError } from "@/components/page-error";

/** Any page that fails to render: why (the database, or the server), and the way back (components/page-error.tsx). */
export default function PageFailed({ error, retry }: { error: Error & { digest?: string }; retry: () => void }) {
  return <PageError digest={error.digest} retry={retry} />;
}
