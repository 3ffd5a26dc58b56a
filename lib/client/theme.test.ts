import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const palette = Object.fromEntries(
  [...readFileSync("node_modules/tailwindcss/theme.css", "utf8").matchAll(/--color-([a-z]+-\d+):\s*([^;]+);/g)].map((m) => [m[1], m[2]]),
);
const themed = [...readFileSync("app/theme.css", "utf8").matchAll(/--color-([a-z]+)-(\d+): light-dark\(((?:[^()]|\([^()]*\))+), ([^;]+)\);/g)];
const STEPS = [50, 100, 200, 300, 400, 500, 600, 700, 800, 900, 950];
const mirror = (step: number) => STEPS[STEPS.length - 1 - STEPS.indexOf(step)];

describe("the dark theme (app/theme.css)", () => {
  it("keeps Tailwind's light palette and mirrors each coloured scale for dark", () => {
    const coloured = themed.filter((m) => m[1] !== "neutral");
    expect(coloured.length).toBeGreaterThanOrEqual(11 * 10);
    for (const [, hue, step, light, dark] of coloured) {
      expect(light, `${hue}-${step}`).toBe(palette[`${hue}-${step}`]);
      expect(dark, `${hue}-${step}`).toBe(palette[`${hue}-${mirror(Number(step))}`]);
    }
  });

  it("keeps the light neutral scale, and sets every neutral step for dark", () => {
    const neutral = themed.filter((m) => m[1] === "neutral");
    expect(neutral.map((m) => Number(m[2]))).toEqual(STEPS);
    for (const [, , step, light] of neutral) expect(light).toBe(palette[`neutral-${step}`]);
  });
});
