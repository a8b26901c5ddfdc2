// The compiled addon, as the package's own tests see it: lib/index.d.ts declares what the
// package exports from it. `heldValues` counts the values `fromJSON` holds (a diagnostic).
declare const addon: { heldValues(): number; readonly [name: string]: unknown };
export = addon;
