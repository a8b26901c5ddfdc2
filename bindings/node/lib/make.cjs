"use strict";
// How the addon makes its answers (src/convert.cpp): an object made in JavaScript with its
// shape known up front costs a fraction of one made from C++ a property at a time.

/** The function that makes the frozen object with `keys`, in order, from its arguments: one
 * compiled for the keys, which are the wire forms' own written as string literals, or, where
 * code cannot be made from strings (`node --disallow-code-generation-from-strings`), one that
 * sets them in turn. */
function compileObjectMaker(keys) {
  if (!keys.includes("__proto__")) {
    const values = keys.map((_, i) => `v${i}`);
    const members = keys.map((key, i) => `${JSON.stringify(key)}: v${i}`).join(", ");
    try {
      return new Function(...values, `"use strict"; return Object.freeze({ ${members} });`);
    } catch (error) {
      if (!(error instanceof EvalError)) throw error;
    }
  }
  return (...values) => {
    const out = {};
    keys.forEach((key, i) => Object.defineProperty(out, key, { value: values[i], enumerable: true, writable: true, configurable: true }));
    return Object.freeze(out);
  };
}

/** The frozen array of its arguments. */
function freezeArray(...items) {
  return Object.freeze(items);
}

module.exports = { compileObjectMaker, freezeArray };
