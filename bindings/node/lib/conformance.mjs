// thm/conformance as an ES module: the CommonJS module's exports.
import conformance from "./conformance.cjs";

export default conformance;
export const { LeaseError, run, checkIds, conformanceTests, serve, load, adapterCommand } =
  conformance;
