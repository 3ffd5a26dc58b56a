/** A server type as it arrives over JSON: Dates become ISO strings. */
export type Wire<T> = T extends Date
  ? string
  : T extends readonly (infer U)[]
    ? Wire<U>[]
    : T extends object
      ? { [K in keyof T]: Wire<T[K]> }
      : T;

/** GET a JSON body; a refusal or failure becomes an Error carrying the server's message and status. */
export class HttpError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = "HttpError";
  }
}

export async function getJson<T>(url: string, signal?: AbortSignal): Promise<T> {
  const res = await fetch(url, { signal, cache: "no-store", headers: { accept: "application/json" } });
  const body: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    const message =
      typeof body === "object" && body !== null && "error" in body && typeof (body as { error: { message?: unknown } }).error?.message === "string"
        ? (body as { error: { message: string } }).error.message
        : `The server answered ${res.status}.`;
    throw new HttpError(message, res.status);
  }
  return body as T;
}
