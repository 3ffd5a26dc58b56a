import { z } from "zod";
import { isJobType, JOB_TYPES } from "./job-types";

/**
 * One field of a job type's params, as the console's form draws it: read from the type's zod schema
 * (lib/jobs/job-types.ts) through its JSON Schema, so a new type or field needs no form code. A
 * field whose value is not a plain scalar (an object, an array, a union) is edited as JSON.
 */
export type ParamField = {
  name: string;
  kind: "text" | "integer" | "number" | "boolean" | "choice" | "json";
  required: boolean;
  options?: string[];
  min?: number;
  max?: number;
  maxLength?: number;
  /** The value the schema fills in when the field is left out. */
  default?: unknown;
  description?: string;
};

type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  default?: unknown;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
};

/**
 * The fields of `type`'s params, in the schema's order; null when the type is unknown or its params
 * are not an object of named fields (the form then takes the whole params as JSON).
 */
export function paramFieldsOf(type: string): ParamField[] | null {
  if (!isJobType(type)) return null;
  // "input": what a person types, so a field with a default is optional.
  const schema = z.toJSONSchema(JOB_TYPES[type].params, { io: "input", unrepresentable: "any" }) as JsonSchema;
  if (schema.type !== "object" || !schema.properties) return null;
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, p]) => ({
    name,
    kind: kindOf(p),
    required: required.has(name),
    ...(p.enum ? { options: p.enum.map(String) } : {}),
    ...(p.minimum !== undefined ? { min: p.minimum } : {}),
    ...(p.maximum !== undefined && Math.abs(p.maximum) < Number.MAX_SAFE_INTEGER ? { max: p.maximum } : {}),
    ...(p.maxLength !== undefined ? { maxLength: p.maxLength } : {}),
    ...(p.default !== undefined ? { default: p.default } : {}),
    ...(p.description ? { description: p.description } : {}),
  }));
}

function kindOf(p: JsonSchema): ParamField["kind"] {
  if (p.enum && p.enum.every((v) => typeof v === "string")) return "choice";
  if (p.type === "string") return "text";
  if (p.type === "integer") return "integer";
  if (p.type === "number") return "number";
  if (p.type === "boolean") return "boolean";
  return "json";
}
