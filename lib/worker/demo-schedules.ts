import type { ScheduleDeclaration } from "../schedules/schedules";

/**
 * The demo's periodic schedules, declared beside its handlers: `npm start` runs its workers with
 * them (scripts/worker.ts --demo-schedules), and the supervisor submits their ticks.
 */
export const demoSchedules: readonly ScheduleDeclaration[] = [
  {
    name: "acme-usage-report",
    cron: "*/10 * * * *",
    timeZone: "UTC",
    type: "report.generate",
    params: { report: "daily_usage", period: "2026-11" },
    tenantId: "acme",
  },
  {
    name: "globex-billing-nightly",
    cron: "0 2 * * *",
    timeZone: "Europe/Berlin",
    type: "report.generate",
    params: { report: "billing_summary", period: "2026-11" },
    tenantId: "globex",
  },
  {
    name: "initech-partner-sync",
    cron: "*/5 9-17 * * 1-5",
    timeZone: "America/New_York",
    type: "upstream.call",
    params: { endpoint: "https://partner.initech.example/sync", timeoutRate: 0.1, failFirstAttempts: 0 },
    tenantId: "initech",
  },
];
