import type { ComponentProps } from "react";
import { Field, INPUT } from "@/components/fields";
import { Options } from "@/components/options";

type Suggestion = { value: string; label?: string };

/**
 * A labelled input, in the console's input style (`className` replaces it): the label names it by its
 * `id`. With `suggestions`, it offers them as one types (a datalist); any other text is still allowed.
 */
export function TextField({
  id,
  label,
  hint,
  suggestions,
  className = INPUT,
  ...input
}: { id: string; label: string; hint?: string; suggestions?: readonly Suggestion[] } & ComponentProps<"input">) {
  const list = suggestions && `${id}-options`;
  return (
    <Field id={id} label={label} hint={hint}>
      <input id={id} list={list} className={className} {...input} />
      {suggestions && (
        <datalist id={list}>
          {suggestions.map((s) => (
            <option key={s.value} value={s.value} label={s.label} />
          ))}
        </datalist>
      )}
    </Field>
  );
}

/** A labelled whole number: a number input that steps by one and offers a phone's numeric keypad. */
export function IntegerField(props: ComponentProps<typeof TextField>) {
  return <TextField type="number" inputMode="numeric" step={1} {...props} />;
}

/** A labelled select of `options`, a filter's: its first choice, `any`, is the empty value (no filter). */
export function FilterSelect({
  id,
  label,
  any,
  options,
  ...select
}: { id: string; label: string; any: string; options: readonly string[] } & ComponentProps<"select">) {
  return (
    <Field id={id} label={label}>
      <select id={id} className={INPUT} {...select}>
        <option value="">{any}</option>
        <Options of={options} />
      </select>
    </Field>
  );
}
