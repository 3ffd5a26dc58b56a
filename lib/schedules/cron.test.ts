import { describe, expect, it } from "vitest";
import { checkCron, countTicks, describeCron, isTimeZone, latestTick, nextTick, upcomingTicks } from "./cron";

const at = (iso: string) => new Date(iso);

describe("cron", () => {
  it("reads an expression in its time zone, across a daylight-saving change", () => {
    // 02:00 in Berlin is 01:00Z in winter (CET) and 00:00Z in summer (CEST); on 2026-03-29 the
    // clocks jump from 02:00 to 03:00, so that day's 02:00 is 03:00 CEST (01:00Z).
    expect(nextTick("0 2 * * *", "Europe/Berlin", at("2026-01-10T12:00:00Z"))).toEqual(at("2026-01-11T01:00:00Z"));
    expect(nextTick("0 2 * * *", "Europe/Berlin", at("2026-07-10T12:00:00Z"))).toEqual(at("2026-07-11T00:00:00Z"));
    expect(upcomingTicks("0 2 * * *", "Europe/Berlin", at("2026-03-28T12:00:00Z"), 2)).toEqual([
      at("2026-03-29T01:00:00Z"),
      at("2026-03-30T00:00:00Z"),
    ]);
  });

  it("finds the latest tick at or before a moment, and the first strictly after it", () => {
    expect(latestTick("*/15 * * * *", "UTC", at("2026-12-01T10:44:59Z"))).toEqual(at("2026-12-01T10:30:00Z"));
    expect(latestTick("*/15 * * * *", "UTC", at("2026-12-01T10:45:00Z"))).toEqual(at("2026-12-01T10:45:00Z"));
    expect(nextTick("*/15 * * * *", "UTC", at("2026-12-01T10:45:00Z"))).toEqual(at("2026-12-01T11:00:00Z"));
    expect(nextTick("*/5 * * * * *", "UTC", at("2026-12-01T10:45:01Z"))).toEqual(at("2026-12-01T10:45:05Z"));
  });

  it("counts the ticks of a span, up to a cap", () => {
    expect(countTicks("* * * * *", "UTC", at("2026-12-01T10:00:00Z"), at("2026-12-01T10:10:00Z"))).toBe(10);
    expect(countTicks("* * * * * *", "UTC", at("2026-12-01T00:00:00Z"), at("2026-12-02T00:00:00Z"), 500)).toBe(500);
  });

  it("refuses what would run at a moment nobody meant", () => {
    expect(checkCron("0 2 * * *", "Europe/Berlin")).toEqual({ ok: true });
    expect(checkCron("@daily", "UTC")).toEqual({ ok: true });
    // cron-parser alone fills missing fields with `*`: "0 2 * *" would run every day of every month anyway,
    // "* *" every minute.
    expect(checkCron("0 2 * *", "UTC")).toMatchObject({ ok: false, message: expect.stringContaining("expected 5 fields") });
    expect(checkCron("61 * * * *", "UTC")).toMatchObject({ ok: false });
    expect(checkCron("@sometimes", "UTC")).toMatchObject({ ok: false, message: expect.stringContaining("unknown alias") });
    expect(checkCron("0 2 * * *", "Mars/Olympus")).toMatchObject({ ok: false, message: expect.stringContaining("time zone") });
    expect(isTimeZone("UTC")).toBe(true);
    expect(isTimeZone("America/Argentina/Buenos_Aires")).toBe(true);
    expect(isTimeZone("'; DROP TABLE schedules")).toBe(false);
  });
});

describe("a schedule fires at most once a minute", () => {
  it("refuses several ticks a minute, saying why and what to write instead", () => {
    for (const cron of ["* * * * * *", "*/10 * * * * *", "0,30 * * * * *"]) {
      expect(checkCron(cron, "UTC")).toMatchObject({ ok: false, message: expect.stringMatching(/fires \d+ times a minute .*at most once a minute/) });
    }
    expect(checkCron("* * * * * *", "UTC")).toMatchObject({ message: expect.stringContaining("(Every second)") });
    // One value in the seconds field is a tick a minute at most.
    expect(checkCron("30 * * * * *", "UTC")).toEqual({ ok: true });
    expect(checkCron("0 */5 * * * *", "UTC")).toEqual({ ok: true });
  });

  it("says an expression in words", () => {
    expect(describeCron("0 2 * * *")).toBe("At 02:00");
    expect(describeCron("*/5 9-17 * * 1-5")).toBe("Every 5 minutes, between 09:00 and 17:59, Monday through Friday");
    expect(describeCron("@hourly")).toBe("Every hour");
    expect(describeCron("not cron")).toBeNull();
  });
});
