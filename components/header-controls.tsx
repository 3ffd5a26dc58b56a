"use client";

import { usePathname } from "next/navigation";
import { useEffect, useRef, useState, type MouseEvent, type ReactNode } from "react";
import { THEME_COOKIE, THEMES, type Theme } from "./theme";

/**
 * The skip link: to the page's results when it has them (`#results`), else to
 * the top of the content. Without JavaScript it still goes to `#main`.
 */
export function SkipLink() {
  function onClick(e: MouseEvent<HTMLAnchorElement>) {
    const target = document.getElementById("results") ?? document.getElementById("main");
    if (!target) return;
    e.preventDefault();
    if (!target.hasAttribute("tabindex")) target.tabIndex = -1;
    target.focus();
    target.scrollIntoView({ block: "start" });
  }
  return (
    <a
      href="#main"
      onClick={onClick}
      className="sr-only focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50 focus:rounded-md focus:bg-white focus:px-3 focus:py-2 focus:text-sm focus:font-medium focus:shadow"
    >
      Skip to content
    </a>
  );
}

/** The main navigation: a row on a wide screen, a menu behind a button on a narrow one. */
export function MainNav({ children }: { children: ReactNode }) {
  const [isOpen, setIsOpen] = useState(false);
  const pathname = usePathname();
  const [shownFor, setShownFor] = useState(pathname);
  // A navigation closes the menu (state adjusted while rendering, as React documents).
  if (shownFor !== pathname) {
    setShownFor(pathname);
    setIsOpen(false);
  }
  return (
    <>
      <button
        type="button"
        aria-expanded={isOpen}
        aria-controls="main-nav"
        onClick={() => setIsOpen((o) => !o)}
        className="order-3 inline-flex items-center gap-1.5 rounded-md border border-neutral-300 px-2.5 py-1 text-sm font-medium text-neutral-700 xl:hidden"
      >
        <svg aria-hidden="true" viewBox="0 0 16 16" className="size-4" fill="currentColor">
          <rect x="2" y="3" width="12" height="1.5" rx="0.75" />
          <rect x="2" y="7.25" width="12" height="1.5" rx="0.75" />
          <rect x="2" y="11.5" width="12" height="1.5" rx="0.75" />
        </svg>
        Menu
      </button>
      <nav id="main-nav" aria-label="Main" className={`order-4 w-full xl:order-2 xl:block xl:w-auto ${isOpen ? "block" : "hidden"}`}>
        {children}
      </nav>
    </>
  );
}

/** Who is signed in, behind a button: their role, the theme, and signing out. */
export function AccountMenu({ name, detail, children }: { name: string; detail: string; children: ReactNode }) {
  const ref = useRef<HTMLDetailsElement>(null);
  // Escape or a click elsewhere closes it, as a menu does.
  useEffect(() => {
    const close = (e: Event) => {
      const d = ref.current;
      if (!d?.open) return;
      if (e instanceof KeyboardEvent ? e.key === "Escape" : !d.contains(e.target as Node)) d.open = false;
    };
    document.addEventListener("keydown", close);
    document.addEventListener("click", close);
    return () => {
      document.removeEventListener("keydown", close);
      document.removeEventListener("click", close);
    };
  }, []);
  return (
    <details ref={ref} className="relative">
      <summary className="flex cursor-pointer list-none items-center gap-1.5 rounded-md px-2 py-1 text-sm hover:bg-neutral-100 [&::-webkit-details-marker]:hidden">
        <span className="max-w-40 truncate font-medium text-neutral-900" data-testid="signed-in-as">
          {name}
          <span className="sr-only">, {detail}</span>
        </span>
        <svg aria-hidden="true" viewBox="0 0 16 16" className="size-3.5 text-neutral-600" fill="currentColor">
          <path d="M4 6l4 4 4-4z" />
        </svg>
      </summary>
      <div className="absolute right-0 z-40 mt-1 w-60 space-y-3 rounded-lg border border-neutral-200 bg-white p-3 text-sm shadow-lg">
        <p className="text-neutral-600">{detail}</p>
        {children}
      </div>
    </details>
  );
}

/** The theme: the system's, or light or dark; kept in a cookie so it sticks across visits. */
export function ThemeSelect({ initial }: { initial: Theme }) {
  const [theme, setTheme] = useState<Theme>(initial);
  function choose(next: Theme) {
    setTheme(next);
    const root = document.documentElement;
    if (next === "system") delete root.dataset.theme;
    else root.dataset.theme = next;
    document.cookie = `${THEME_COOKIE}=${next}; path=/; max-age=${60 * 60 * 24 * 365}; samesite=lax`;
  }
  return (
    <label className="flex items-center justify-between gap-2 text-neutral-700">
      Theme
      <select
        value={theme}
        onChange={(e) => choose(e.currentTarget.value as Theme)}
        className="rounded-md border border-neutral-300 bg-white px-2 py-1 text-sm text-neutral-900"
      >
        {THEMES.map((t) => (
          <option key={t} value={t}>
            {t === "system" ? "Same as system" : t === "light" ? "Light" : "Dark"}
          </option>
        ))}
      </select>
    </label>
  );
}
