// thm/conformance: the host queue conformance suite against a queue written in JavaScript.
import type { DispatchConversation, MentionDispatchPolicy, Sequence } from "./wire.js";

/** A byte-string field: a string, or bytes (a Buffer when the suite sends bytes that are not
 * UTF-8; the store must keep and return them exactly). */
export type Bytes = string | Uint8Array;

/** A request as the suite sends it: `MentionTurnRequest`, whose byte fields may be bytes. */
export interface SuiteRequest {
  readonly key: { readonly trigger_sequence: bigint };
  readonly source_id: Bytes;
  readonly target_id: Bytes;
  readonly content: Bytes;
  readonly conversation: { readonly desk_id: Bytes; readonly thread_root: bigint | null };
  readonly child_hop: number;
}

/** A reply the host committed: what a request must match (SPEC §4). */
export interface Reply {
  readonly conversation: { readonly desk_id: Bytes; readonly thread_root: bigint | null };
  readonly sequence: bigint;
  readonly author_id: Bytes;
  readonly content: Bytes;
  readonly hop: number;
}

/** What the queue can be asked (kit/protocol/PROTOCOL.md, "The handshake"); missing is false
 * or null. A check that needs an undeclared one is skipped; its operations are never called. */
export interface Capabilities {
  hooks?: boolean; row_locking?: boolean; persistent?: boolean; sql_schema?: boolean;
  leases?: boolean; injected_store_clock?: boolean; skewable_client_clock?: boolean;
  max_content_bytes?: number | null; max_id_bytes?: number | null; max_attempts?: number | null;
  max_sessions?: number | null;
}

type Maybe<T> = T | PromiseLike<T>;
/** With `hooks`: null, or while the suite holds a hook, what `enqueueOnce` awaits at each of
 * the six points (`after_begin` … `after_commit_before_return`); false means fail there. */
export type Hook = ((point: string) => Promise<boolean>) | null;
export type Outcome = { status: "enqueued" | "already" } | { status: "refused"; reason: string };
export type Integer = number | bigint;

export interface Lease {
  child_id: Integer; token: string; expires_at: Integer; attempt: Integer; request: SuiteRequest;
}

/** One session: its own connection. */
export interface ConformanceSession {
  enqueueOnce(request: SuiteRequest, hook: Hook): Maybe<Outcome>;
  close?(): Maybe<unknown>;
  claim?(durationMs: Integer): Maybe<Lease | null>;
  renew?(token: string, durationMs: Integer): Maybe<Integer>;
  complete?(token: string): Maybe<string>;
  fail?(token: string): Maybe<string>;
}

/** The queue under test and the host's writes beside it. */
export interface ConformanceHarness {
  readonly name: string;
  readonly capabilities: Capabilities;
  openSession(): Maybe<ConformanceSession>;
  reset(): Maybe<unknown>;
  commitReply(reply: Reply): Maybe<unknown>;
  setPolicy(policy: MentionDispatchPolicy): Maybe<unknown>;
  setAuthorized(sourceId: Bytes, targetId: Bytes, authorized: boolean): Maybe<unknown>;
  setAvailable(agentId: Bytes, available: boolean): Maybe<unknown>;
  settle(childId: Integer, how: "complete" | "fail" | "dead_letter" | "delete"): Maybe<unknown>;
  runMaintenance(): Maybe<unknown>;
  records(): Maybe<readonly { key: Bytes; child_id: Integer }[]>;
  children(): Maybe<readonly {
    id: Integer; key: Bytes; request: SuiteRequest; state: string; attempts: Integer;
    lease_expires_at: Integer | null;
  }[]>;
  uniqueKeyIndex?(): Maybe<{ columns: string[]; partial: boolean } | null>;
  storeNow?(): Maybe<Integer>;
  advanceStoreClock?(byMs: Integer): Maybe<unknown>;
  reopen?(): Maybe<unknown>;
  restartStore?(): Maybe<unknown>;
}

/** A lease operation's answer when it cannot (a result, not a failure). */
export declare class LeaseError extends Error {
  constructor(kind: "stale_token" | "invalid_duration" | "unavailable");
  readonly kind: "stale_token" | "invalid_duration" | "unavailable";
}

/** Where the harness is: `path/to/module.mjs#exportName` (a path relative to the working
 * directory, or a package), a `file:` URL with the export as its fragment
 * (`new URL("./harness.mjs#Harness", import.meta.url)`), or `{module, export}`. The export is
 * the harness, its class, or a function that makes it. */
export type HarnessName = string | URL | { module: string; export?: string };

export interface Settings {
  checks?: string[]; short?: boolean; seed?: Integer; repeat?: number; runs?: number;
  require?: string[]; execTimeout?: number; junit?: string; html?: string;
  /** Also write every run's recorded calls to this file, as JSON in Jepsen's shape. */
  history?: string;
  env?: Record<string, string>;
}
export interface CheckResult {
  id: string; title: string; result: "pass" | "fail" | "skip"; reason: string;
  left_unproven: boolean; seed: number; replay: string | null; duration_ms: number;
}
export interface Report {
  passed: boolean; exitCode: number; checks: CheckResult[]; table: string; stderr: string;
  json: Record<string, unknown> | null;
}

/** Runs `thm conformance` against the harness, served by this package. */
export declare function run(harness: HarnessName, settings?: Settings): Promise<Report>;
/** Every check: [id, title]. */
export declare function checkIds(): [string, string][];
/** One test per check, registered with `test` (node:test's by default; Vitest's or Jest's). */
export declare function conformanceTests(
  harness: HarnessName, settings?: Settings,
  runner?: { test?: (name: string, body: (context?: any) => Promise<void>) => unknown }): void;
/** Serves a harness on stdin and stdout (what the adapter process runs). */
export declare function serve(factory: () => Maybe<ConformanceHarness>): Promise<void>;
export declare function load(target: string): Promise<() => Maybe<ConformanceHarness>>;
export declare function adapterCommand(harness: HarnessName): string;
declare const conformance: {
  LeaseError: typeof LeaseError; run: typeof run; checkIds: typeof checkIds;
  conformanceTests: typeof conformanceTests; serve: typeof serve; load: typeof load;
  adapterCommand: typeof adapterCommand;
};
export default conformance;
export type { DispatchConversation, Sequence };
