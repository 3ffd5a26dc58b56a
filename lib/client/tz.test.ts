import { describe, expect, it } from "vitest";
import { fromWallInput, isTimeZone, presetRange, toWallInput, wallToUtc } from "./tz";

describe("viewer time zones", () => {
  it("reads and writes wall times in a zone, across DST", () => {
    expect(wallToUtc(2026, 12, 1, 0, 0, "America/New_York").toISOString()).toBe("2026-12-01T05:00:00.000Z");
    expect(wallToUtc(2026, 7, 1, 0, 0, "America/New_York").toISOString()).toBe("2026-07-01T04:00:00.000Z");
    expect(wallToUtc(2026, 12, 1, 0, 0, "Asia/Tokyo").toISOString()).toBe("2026-11-30T15:00:00.000Z");
    expect(toWallInput(new Date("2026-12-01T05:30:00Z"), "America/New_York")).toBe("2026-12-01T00:30");
    expect(fromWallInput("2026-12-01T00:30", "America/New_York")?.toISOString()).toBe("2026-12-01T05:30:00.000Z");
    expect(fromWallInput("garbage", "UTC")).toBeUndefined();
  });

  it("'yesterday' is the viewer's yesterday", () => {
    // 02:00 UTC on Dec 1 is still Nov 30 in New York: its yesterday is Nov 29 there.
    const now = Date.parse("2026-12-01T02:00:00Z");
    const ny = presetRange("yesterday", now, "America/New_York");
    expect([ny.from.toISOString(), ny.to?.toISOString()]).toEqual(["2026-11-29T05:00:00.000Z", "2026-11-30T05:00:00.000Z"]);
    const utc = presetRange("yesterday", now, "UTC");
    expect([utc.from.toISOString(), utc.to?.toISOString()]).toEqual(["2026-11-30T00:00:00.000Z", "2026-12-01T00:00:00.000Z"]);
    expect(presetRange("last-hour", now, "UTC").from.toISOString()).toBe("2026-12-01T01:00:00.000Z");
    expect(presetRange("last-7-days", now, "UTC").from.toISOString()).toBe("2026-11-25T00:00:00.000Z");
    expect(isTimeZone("Europe/Paris")).toBe(true);
    expect(isTimeZone("Mars/Olympus")).toBe(false);
  });
});
