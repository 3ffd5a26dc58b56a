import { WINDOW_KEYS, WINDOWS, type DeadScopeParams } from "./scope";

/** The page's scope as a plain GET form: the URL is the state, so a view can be shared. */
export function ScopeForm({ scope }: { scope: DeadScopeParams }) {
  const field = "rounded-md border border-neutral-300 bg-white px-2.5 py-1.5 text-sm shadow-xs";
  return (
    <form
      method="get"
      action="/dead"
      aria-label="Scope"
      className="flex flex-wrap items-end gap-3 rounded-lg border border-neutral-200 bg-white p-3 shadow-xs"
    >
      <label className="grid gap-1 text-xs font-medium text-neutral-600">
        Tenant
        <input name="tenant" defaultValue={scope.tenant ?? ""} placeholder="All tenants" maxLength={100} className={`${field} w-48`} />
      </label>
      <label className="grid gap-1 text-xs font-medium text-neutral-600">
        Died
        <select name="window" defaultValue={scope.window} className={field}>
          {WINDOW_KEYS.map((w) => (
            <option key={w} value={w}>
              {WINDOWS[w].label}
            </option>
          ))}
        </select>
      </label>
      <button
        type="submit"
        className="rounded-md border border-neutral-300 bg-white px-3 py-1.5 text-sm font-medium text-neutral-700 shadow-xs hover:bg-neutral-50"
      >
        Apply
      </button>
    </form>
  );
}
