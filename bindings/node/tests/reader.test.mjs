// @ts-check
// A plain object is read where it is (adr/0028): the same decoder reads it as reads text, so
// every value the case files hold, and each of them broken one key at a time, decodes to the
// same value or is refused with the same error either way, as every wire type.
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { stringify as stringifyLossless } from "lossless-json";
import * as thm from "thm";
import { caseFiles, loadCases } from "./case_runner.mjs";

const folders = ["../../../model/cases", "../../../cli/cases"].map((folder) =>
  fileURLToPath(new URL(folder, import.meta.url)),
);
const cases = (process.env.THM_CASES?.split(path.delimiter) ?? folders).flatMap(caseFiles).flatMap(loadCases);

/**
 * Every object and array inside `value`, `value` included, once per JSON text.
 * @param {unknown} value
 * @param {Map<string, unknown>} into
 */
function collect(value, into) {
  if (value === null || typeof value !== "object") return;
  into.set(String(stringifyLossless(value)), value);
  for (const item of Object.values(value)) collect(item, into);
}

// What replaces a key's value to break it: each JSON type, and the wrong one for most keys.
const breakers = [null, true, -1, 2.5, 4294967296, "x", "", [], {}, [null]];

/**
 * `value` and, for an object, each of its keys left out or replaced by each breaker.
 * @param {unknown} value
 * @returns {unknown[]}
 */
function variants(value) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return [value];
  const object = /** @type {Record<string, unknown>} */ (value);
  const out = [value];
  for (const key of Object.keys(object)) {
    const { [key]: _, ...without } = object;
    out.push(without);
    for (const breaker of breakers) out.push({ ...object, [key]: breaker });
  }
  return out;
}

/**
 * Whether `value` holds a Sequence written as a string, which only a JavaScript value may be
 * (adr/0014: a decimal string is a Sequence's third form), and text never.
 * @param {unknown} value
 * @returns {boolean}
 */
function stringSequence(value) {
  if (value === null || typeof value !== "object") return false;
  return Object.entries(value).some(([key, item]) =>
    ((key === "trigger_sequence" || key === "thread_root") && typeof item === "string") || stringSequence(item));
}

/**
 * What decoding `run()` comes to: the value, or the DecodeError's case-file form.
 * @param {() => unknown} run
 * @returns {{ value: unknown } | { error: { variant: string, path: string, reason: string } }}
 */
function outcome(run) {
  try {
    return { value: run() };
  } catch (error) {
    if (error instanceof thm.DecodeError) return { error: error.toJSON() };
    throw error;
  }
}

test("a plain object decodes as its JSON text does, to the same value or the same error", () => {
  /** @type {Map<string, unknown>} */
  const values = new Map();
  for (const c of cases) collect(c.input, values);
  assert.ok(values.size >= 200, `only ${values.size} distinct values in the case files`);
  let compared = 0;
  let refused = 0;
  /** @param {thm.WireType} type @param {unknown} variant */
  const compare = (type, variant) => {
    const text = String(stringifyLossless(variant));
    const plain = outcome(() => thm.fromJSON(type, variant, { root: "/x" }));
    const fromText = outcome(() => thm.parse(type, text));
    if ("error" in fromText && "error" in plain) {
      assert.deepEqual(plain.error, { ...fromText.error, path: `/x${fromText.error.path}` }, `${type} ${text}`);
      refused += 1;
    } else {
      assert.deepEqual(plain, fromText, `${type} ${text}`);
    }
    compared += 1;
    return "value" in plain;
  };
  for (const value of values.values()) {
    if (stringSequence(value)) continue;
    // Each value as every type; broken, as each type it is.
    const types = thm.WIRE_TYPES.filter((type) => compare(type, value));
    for (const variant of variants(value).slice(1).filter((v) => !stringSequence(v))) {
      for (const type of types) compare(type, variant);
    }
  }
  assert.ok(refused > 1000 && compared - refused > 200, `${compared} compared, ${refused} refused`);
});
