/** The theme a person picked: "system" follows the operating system's setting. */
export const THEMES = ["system", "light", "dark"] as const;
export type Theme = (typeof THEMES)[number];

/** The cookie that keeps the choice, read by the layout so the first paint is already right. */
export const THEME_COOKIE = "jobscope-theme";

export const parseTheme = (v: string | undefined): Theme => ((THEMES as readonly string[]).includes(v ?? "") ? (v as Theme) : "system");
