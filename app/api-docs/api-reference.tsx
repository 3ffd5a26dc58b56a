"use client";

import dynamic from "next/dynamic";
import { createElement, useEffect, useRef, useState, type ComponentType } from "react";
import "swagger-ui-react/swagger-ui.css";
import "./api-reference.css";

// Swagger UI runs in the browser only, loaded with this page (it is large): no other page pays for it.
const SwaggerUI = dynamic(() => import("swagger-ui-react"), {
  ssr: false,
  loading: () => (
    <p role="status" className="p-6 text-sm text-neutral-600">
      Loading the reference…
    </p>
  ),
});

type Getter = (name: string, container?: boolean) => ComponentType;

/**
 * Swagger UI's page layout, made to sit inside ours: its own layout wraps the
 * operations in a second <main> landmark, and shows the servers and Authorize
 * strip, which a read-only reference with one server does not need.
 */
function ReferenceLayout({ getComponent }: { getComponent: Getter }) {
  // Swagger UI's registry hands back the same component for a name on every call.
  const part = (name: string, container = false) => createElement(getComponent(name, container));
  return (
    <div className="swagger-ui">
      {part("SvgAssets")}
      {part("errors", true)}
      {part("InfoContainer", true)}
      <section aria-label="Operations">{part("operations", true)}</section>
      {part("Models", true)}
    </div>
  );
}
const referenceLayout = () => ({ components: { ReferenceLayout } });

/**
 * Its title is an h1, and its sections (each tag of operations, the schemas)
 * are h3 and h4: one level below the title, they are given level 2 as they appear.
 */
function levelHeadings(root: HTMLElement) {
  for (const h of root.querySelectorAll(".opblock-tag, .models > h4")) h.setAttribute("aria-level", "2");
}

/**
 * The tenant API's OpenAPI document, rendered by Swagger UI. Read only: "Try it
 * out" is off, since a key's secret does not belong in a page's form. Its own
 * stylesheet is light, so it sits on a light panel in either theme.
 */
export function ApiReference({ url }: { url: string }) {
  const ref = useRef<HTMLDivElement>(null);
  // Busy until Swagger UI shows the document's operations (or its errors): its own spinner says
  // nothing to assistive technology, and a page read before then has no reference in it yet.
  const [shown, setShown] = useState(false);
  useEffect(() => {
    const root = ref.current;
    if (!root) return;
    const update = () => {
      levelHeadings(root);
      if (root.querySelector(".opblock-tag, .errors-wrapper")) setShown(true);
    };
    update();
    const observer = new MutationObserver(update);
    observer.observe(root, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, []);
  return (
    <div ref={ref} aria-busy={!shown} className="api-reference rounded-lg border border-neutral-200 bg-white py-2 shadow-xs [color-scheme:light]">
      <SwaggerUI
        url={url}
        plugins={[referenceLayout]}
        layout="ReferenceLayout"
        supportedSubmitMethods={[]}
        docExpansion="list"
        defaultModelsExpandDepth={0}
      />
    </div>
  );
}
