"use strict";
// How the addon makes its answers (src/convert.cpp): an object or array made in JavaScript
// with its shape known up front costs a fraction of one made from C++ a property at a time.

/** The function that makes the frozen object with `keys`, in order, from its arguments. The
 * keys are the wire forms' own (never `__proto__`), written as string literals. */
function compileObjectMaker(keys) {
  if (keys.includes("__proto__")) throw new Error(`make.cjs: a key named __proto__`);
  const values = keys.map((_, i) => `v${i}`);
  const members = keys.map((key, i) => `${JSON.stringify(key)}: v${i}`).join(", ");
  return new Function(...values, `"use strict"; return Object.freeze({ ${members} });`);
}

/** The frozen array of its arguments. */
function freezeArray(...items) {
  return Object.freeze(items);
}

module.exports = { compileObjectMaker, freezeArray };
