/** A GET that failed: the server's own message when it sent one, its HTTP status and error code. */
export class HttpError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | null,
  ) {
    super(message);
    this.name = "HttpError";
  }

  get isNotFound() {
    return this.status === 404;
  }

  /** Signed out, or not allowed: polling again will not help. */
  get isRefused() {
    return this.status === 401 || this.status === 403;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

function errorOf(body: unknown): { code: string | null; message: string | null } {
  if (!isRecord(body) || !isRecord(body.error)) return { code: null, message: null };
  const { code, message } = body.error;
  return { code: typeof code === "string" ? code : null, message: typeof message === "string" ? message : null };
}

/**
 * The one GET of the console's polled reads: never cached, a refusal or failure
 * thrown as an HttpError with the server's message, and the body handed to
 * `parse`, which checks the shape the page relies on.
 */
export async function getJson<T>(url: string, signal: AbortSignal | undefined, parse: (body: unknown) => T): Promise<T> {
  const res = await fetch(url, { signal, cache: "no-store", headers: { accept: "application/json" } });
  const body: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    const { code, message } = errorOf(body);
    throw new HttpError(message ?? `The server answered ${res.status}.`, res.status, code);
  }
  return parse(body);
}

type FieldKind = "string" | "number" | "boolean" | "array" | "object";
function kindOf(v: unknown): FieldKind | "null" | "other" {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  const t = typeof v;
  return t === "object" || t === "string" || t === "number" || t === "boolean" ? t : "other";
}

/**
 * A `parse` for getJson that checks the top-level fields a page reads, and
 * otherwise trusts our own route handler's typed body (their types are shared
 * through lib/client/wire.ts).
 */
export function shaped<T>(what: string, fields: Record<string, FieldKind>) {
  return (body: unknown): T => {
    if (!isRecord(body) || Object.entries(fields).some(([k, kind]) => kindOf(body[k]) !== kind)) {
      throw new HttpError(`The server sent ${what} in an unexpected shape.`, 200, "bad_shape");
    }
    // Checked above as far as the page relies on it; the route handler types the rest.
    return body as T;
  };
}
