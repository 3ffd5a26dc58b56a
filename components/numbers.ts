// Counts as the console writes them, the same on the server and in every browser.

/** 12,345: a fixed locale, so the server's render and the browser's agree. */
export const numbers = new Intl.NumberFormat("en-US");

/** "1 job", "1,204 jobs"; `many` for irregular plurals. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${numbers.format(n)} ${n === 1 ? one : many}`;
}
