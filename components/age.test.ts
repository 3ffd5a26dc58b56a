import { createElement as h, type ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { formatAgo, formatRelative } from "@/lib/time-format";
import { AgoOverTime } from "./cells";
import { Freshness } from "./freshness";
import { RelativeTime, TimeAgo, Timestamp } from "./time-zone";

const NOW = Date.parse("2026-12-01T12:00:00Z");
const textOf = (el: ReactElement) => renderToStaticMarkup(el).replace(/<[^>]*>/g, "");

describe("an age reads the same wherever the console shows it", () => {
  it.each([
    [0, "0 s ago"],
    [400, "0 s ago"],
    [1_000, "1 s ago"],
    [59_400, "59 s ago"],
    [61_000, "1 min ago"],
    [90 * 60_000, "1 h ago"],
    [30 * 3_600_000, "30 h ago"],
    [49 * 3_600_000, "2 d ago"],
    [3 * 86_400_000, "3 d ago"],
  ])("%i ms ago is %s", (age, words) => {
    const at = NOW - age;
    expect(formatAgo(age)).toBe(words);
    // The job page's event log and heartbeat, the schedules' last run.
    expect(formatRelative(at, NOW)).toBe(words);
    // The freshness strip of every polled page.
    expect(textOf(h(Freshness, { updatedAt: at, isPaused: false, isFailing: false, serverNow: NOW }))).toContain(`Updated ${words}`);
    // List cells: the jobs list, dead groups, workers, rejections, the audit log.
    expect(textOf(h(TimeAgo, { at: new Date(at), now: NOW }))).toBe(words);
    expect(textOf(h(AgoOverTime, { at: new Date(at).toISOString(), now: new Date(NOW).toISOString() })).startsWith(words)).toBe(true);
    // The job page.
    expect(textOf(h(RelativeTime, { at: new Date(at), now: NOW }))).toBe(words);
    expect(textOf(h(Timestamp, { at: new Date(at), now: NOW })).endsWith(words)).toBe(true);
  });

  it("reads a time ahead of the clock (clocks apart) as no age in lists, and as one to come where the future is meant", () => {
    expect(formatAgo(-2_000)).toBe("0 s ago");
    expect(textOf(h(TimeAgo, { at: new Date(NOW + 2_000), now: NOW }))).toBe("0 s ago");
    expect(textOf(h(Freshness, { updatedAt: NOW + 900, isPaused: false, isFailing: false, serverNow: NOW }))).toContain("Updated 0 s ago");
    expect(formatRelative(NOW + 2_000, NOW)).toBe("in 2 s");
  });

  it("says a time to come as one, in the same units", () => {
    expect(formatRelative(NOW + 40_000, NOW)).toBe("in 40 s");
    expect(formatRelative(NOW + 30 * 3_600_000, NOW)).toBe("in 30 h");
  });
});
