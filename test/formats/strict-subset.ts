/**
 * A checker of OpenAI's strict structured-output subset, as its documentation states the rules: the
 * root is an object (not anyOf); every object has `additionalProperties: false` and lists every
 * property in `required`; only the supported keywords appear (`STRICT_KEYWORDS`), formats are the
 * supported ones, `$ref` points into the root's `$defs`; at most 10 levels of object nesting, 5,000
 * object properties and 1,000 enum values in all.
 */
import { STRICT_FORMATS, STRICT_KEYWORDS } from "../../src/formats/plan-schema.js";

const TYPES = new Set(["object", "array", "string", "number", "integer", "boolean", "null"]);

/** Every rule the schema breaks, as `pointer: rule` lines (empty: the schema is in the subset). */
export function strictViolations(root: unknown): string[] {
  const problems: string[] = [];
  let properties = 0;
  let enumValues = 0;
  if (typeof root !== "object" || root === null || Array.isArray(root)) return ["/: the root must be an object schema"];
  const top = root as Record<string, unknown>;
  if (top["type"] !== "object") problems.push(`/: the root must have type "object"`);
  if ("anyOf" in top) problems.push("/: the root must not be anyOf");
  const defs = (top["$defs"] ?? {}) as Record<string, unknown>;

  const visit = (schema: unknown, pointer: string, objectDepth: number): void => {
    if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
      problems.push(`${pointer}: a schema must be an object (no boolean schemas)`);
      return;
    }
    const node = schema as Record<string, unknown>;
    for (const key of Object.keys(node)) {
      if (!STRICT_KEYWORDS.includes(key)) problems.push(`${pointer}: unsupported keyword ${key}`);
    }
    if (pointer !== "" && "$defs" in node) problems.push(`${pointer}: $defs only at the root`);
    if ("type" in node && !(typeof node["type"] === "string" && TYPES.has(node["type"])))
      problems.push(`${pointer}: type must be one type name`);
    if ("format" in node && !STRICT_FORMATS.includes(node["format"] as string)) problems.push(`${pointer}: unsupported format`);
    if ("$ref" in node) {
      const ref = node["$ref"];
      const name = typeof ref === "string" && ref.startsWith("#/$defs/") ? ref.slice("#/$defs/".length) : undefined;
      if (name === undefined || !Object.hasOwn(defs, name)) problems.push(`${pointer}: $ref must name a definition in the root's $defs`);
      if (Object.keys(node).some((key) => key !== "$ref" && key !== "description"))
        problems.push(`${pointer}: nothing but a description beside $ref`);
      return;
    }
    if ("anyOf" in node) {
      const branches = node["anyOf"];
      if (!Array.isArray(branches) || branches.length === 0) problems.push(`${pointer}: anyOf must be a non-empty list`);
      else branches.forEach((branch, index) => visit(branch, `${pointer}/anyOf/${index}`, objectDepth));
      return;
    }
    if (!("type" in node) && !("enum" in node)) problems.push(`${pointer}: a schema needs a type, an enum, anyOf or $ref`);
    if ("enum" in node) {
      if (!Array.isArray(node["enum"]) || node["enum"].length === 0) problems.push(`${pointer}: enum must be a non-empty list`);
      else enumValues += node["enum"].length;
    }
    if (node["type"] === "object") {
      if (objectDepth >= 10) problems.push(`${pointer}: more than 10 levels of object nesting`);
      if (node["additionalProperties"] !== false) problems.push(`${pointer}: an object needs additionalProperties: false`);
      const props = (node["properties"] ?? {}) as Record<string, unknown>;
      if (typeof props !== "object" || props === null || Array.isArray(props)) problems.push(`${pointer}: properties must be an object`);
      const names = Object.keys(props);
      properties += names.length;
      const required = node["required"];
      if (!Array.isArray(required) || required.length !== names.length || !names.every((name) => required.includes(name))) {
        problems.push(`${pointer}: every property must be required`);
      }
      for (const name of names)
        visit(props[name], `${pointer}/properties/${name.replaceAll("~", "~0").replaceAll("/", "~1")}`, objectDepth + 1);
    } else {
      for (const key of ["properties", "required", "additionalProperties"])
        if (key in node) problems.push(`${pointer}: ${key} on a schema that is not an object`);
    }
    if (node["type"] === "array") {
      if (!("items" in node)) problems.push(`${pointer}: an array needs items`);
      else visit(node["items"], `${pointer}/items`, objectDepth);
    } else if ("items" in node) problems.push(`${pointer}: items on a schema that is not an array`);
  };

  const { $defs: _defs, ...rest } = top;
  visit(rest, "", 0);
  for (const name of Object.keys(defs)) visit(defs[name], `/$defs/${name}`, 0);
  if (properties > 5000) problems.push(`/: ${properties} object properties, over 5,000`);
  if (enumValues > 1000) problems.push(`/: ${enumValues} enum values, over 1,000`);
  return problems;
}
