import { describe, expect, it } from "vitest";
import { formatClock, formatDateTime, formatDuration, formatLong, formatMoment, formatUtc, parseTimeZone, zoneLabel } from "./time-format";

describe("times in the viewer's zone", () => {
  const winter = new Date("2026-12-01T13:05:03Z");
  const summer = new Date("2026-07-01T12:05:03Z");

  it("writes a zone with DST at its offset on either side of the change", () => {
    expect(formatDateTime(winter, "Europe/Berlin")).toBe("2026-12-01 14:05:03 GMT+1");
    expect(formatDateTime(summer, "Europe/Berlin")).toBe("2026-07-01 14:05:03 GMT+2");
    expect(formatDateTime(winter, "America/New_York")).toBe("2026-12-01 08:05:03 GMT-5");
    expect(formatDateTime(summer, "America/New_York")).toBe("2026-07-01 08:05:03 GMT-4");
    // The last second before Berlin's clocks go back (03:00 CEST → 02:00 CET on 2026-10-25), and the first after.
    expect(formatDateTime(new Date("2026-10-25T00:59:59Z"), "Europe/Berlin")).toBe("2026-10-25 02:59:59 GMT+2");
    expect(formatDateTime(new Date("2026-10-25T01:00:00Z"), "Europe/Berlin")).toBe("2026-10-25 02:00:00 GMT+1");
  });

  it("names half-hour offsets and dates that differ from UTC's", () => {
    expect(zoneLabel(winter, "Asia/Kolkata")).toBe("GMT+5:30");
    expect(formatDateTime(new Date("2026-12-01T20:00:00Z"), "Asia/Tokyo")).toBe("2026-12-02 05:00:00 GMT+9");
    expect(formatClock(winter, "Asia/Kolkata")).toBe("18:35:03");
    expect(formatLong(new Date("2026-05-01T12:01:03Z"), "Europe/Berlin")).toBe("1 May 2026, 14:01:03 GMT+2");
  });

  it("UTC is written as UTC, as before", () => {
    expect(formatUtc(winter)).toBe("2026-12-01 13:05:03 UTC");
    expect(formatDateTime(winter, "UTC")).toBe("2026-12-01 13:05:03 UTC");
    expect(formatLong(new Date("2026-05-01T12:01:03Z"), "UTC")).toBe("1 May 2026, 12:01:03 UTC");
  });

  it("says the day when it is not the viewer's today", () => {
    const now = Date.parse("2026-12-01T23:30:00Z"); // already Dec 2 in Berlin
    expect(formatMoment(new Date("2026-12-01T23:10:00Z"), now, "Europe/Berlin")).toBe("at 00:10:00 GMT+1");
    expect(formatMoment(new Date("2026-12-01T22:50:00Z"), now, "Europe/Berlin")).toBe("on 2026-12-01 at 23:50:00 GMT+1");
    expect(formatMoment(new Date("2026-12-01T22:50:00Z"), now, "UTC")).toBe("at 22:50:00 UTC");
  });

  it("a missing or invalid cookie means UTC", () => {
    expect(parseTimeZone(undefined)).toBe("UTC");
    expect(parseTimeZone("")).toBe("UTC");
    expect(parseTimeZone("Mars/Olympus")).toBe("UTC");
    expect(parseTimeZone("<script>")).toBe("UTC");
    expect(parseTimeZone("%E0%A4%A")).toBe("UTC");
    expect(parseTimeZone("Europe%2FBerlin")).toBe("Europe/Berlin");
    expect(parseTimeZone("America/New_York")).toBe("America/New_York");
  });
});

describe("formatDuration", () => {
  it.each([
    [0, "0ms"],
    [350, "350ms"],
    [4_250, "4.2s"],
    [42_000, "42s"],
    [192_000, "3m 12s"],
    [4 * 3_600_000 + 5 * 60_000, "4h 05m"],
    [360_000, "6m"],
    [3_600_000, "1h"],
    [51 * 3_600_000, "2d 3h"],
    [48 * 3_600_000, "2d"],
    [-5, "0ms"],
  ])("%i ms is %s", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
