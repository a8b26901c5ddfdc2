"use strict";
// The errors thm throws (adr/0014). Each carries the case-file form of the C++ error it
// stands for (spec/cases.md): `variant`, the variant's own fields as properties
// (`member_id`, `desk_id`, `path`, ...) and `message`; `toJSON()` is that form, the object
// `thm eval` prints under "error".

/** Base class of every error thm throws. */
class ThmError extends Error {
  /** `wire` is the case-file form: `{ variant, <fields>, message }`. */
  constructor(wire, options) {
    if (typeof wire !== "object" || wire === null || typeof wire.variant !== "string") {
      throw new TypeError(`${new.target.name}(wire): expected a case-file form { variant, ... }`);
    }
    super(String(wire.message ?? wire.reason ?? wire.variant), options);
    Object.defineProperty(this, "wire", { value: Object.freeze({ ...wire }) });
    for (const [key, value] of Object.entries(wire)) {
      if (key !== "message") Object.defineProperty(this, key, { value, enumerable: true });
    }
  }
  /** The case-file form: `{ variant, <fields>, message }` (`DecodeError`'s has no message). */
  toJSON() {
    return { ...this.wire };
  }
}

/** A value the wire decoder refused (SPEC §0.5): `path` is the JSON Pointer of the
 * offending value, `reason` what is wrong with it. */
class DecodeError extends ThmError {
  constructor(path, reason) {
    super({ variant: "Decode", path: String(path), reason: String(reason) });
    this.message = this.path ? `${this.reason} (at ${this.path})` : this.reason;
  }
}

/** A malformed roster snapshot (`EmptyRosterMemberId`, `DuplicateRosterMemberId`, ...). */
class RosterError extends ThmError {}

/** A malformed desk snapshot, or a desk identity that names none or several (SPEC §1.2). */
class DeskError extends ThmError {}

/** A responder request the ladder cannot answer (SPEC §2.2). */
class ResponderError extends ThmError {}

// The QueueErrorKind tokens, from the core (`unavailable`, ..., `internal`).
const { QUEUE_ERROR_KINDS } = require("./addon.cjs");

/** A host failure from the queue (SPEC §4): `kind` and the host's `message`. A queue throws
 * it from `enqueueOnce` to report a failure of a given kind; `dispatchMention` throws it for
 * every host failure: the queue's own, or one of kind `internal` whose `cause` is whatever
 * else the queue threw or returned. `toJSON()` is the QueueError wire form. */
class QueueError extends ThmError {
  constructor(kind, message = "", options) {
    if (!QUEUE_ERROR_KINDS.includes(kind)) {
      throw new TypeError(
        `QueueError(kind): expected ${QUEUE_ERROR_KINDS.map((k) => JSON.stringify(k)).join(", ")}, got ${String(kind)}`,
      );
    }
    super({ variant: "Enqueue", kind, message: String(message) }, options);
  }
  toJSON() {
    return { kind: this.kind, message: this.message };
  }
}

const FAMILIES = { ThmError, DecodeError, RosterError, DeskError, ResponderError, QueueError };
// Each class's `name`, as a property of its prototype, as Error's own is.
for (const [name, family] of Object.entries(FAMILIES)) {
  Object.defineProperty(family.prototype, "name", { value: name, writable: true, configurable: true });
}

// How the addon builds an error of `family` from a core error's case-file form. The stack
// starts at the caller's call of thm, not here.
function fromCase(family, wire) {
  let error;
  if (family === "DecodeError") {
    error = new DecodeError(wire.path, wire.reason);
  } else if (family === "QueueError") {
    error = new QueueError(wire.kind, wire.message);
  } else {
    error = new FAMILIES[family](wire);
  }
  Error.captureStackTrace(error, fromCase);
  return error;
}

module.exports = {
  ThmError,
  DecodeError,
  RosterError,
  DeskError,
  ResponderError,
  QueueError,
  QUEUE_ERROR_KINDS,
  fromCase,
};
