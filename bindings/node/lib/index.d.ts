// thm for Node.js (adr/0014): the functions, the errors and the wire types. Values are the
// SPEC §6 wire forms (./wire.d.ts); arguments accept `In<T>` of them, or what `fromJSON`
// answered, which is read without converting it again. A malformed wire argument throws
// `DecodeError` with the JSON Pointer path from the argument's name (`/roster/members/0/id`);
// an argument of the wrong JavaScript type (a body that is not a string) throws `TypeError`.
import type {
  Conversation, DeskSnapshot, DispatchConversation, EnqueueOutcome, In, Mention, MentionAuthor,
  MentionDispatchContext, MentionDispatchDecision, MentionDispatchInput, MentionDispatchOutcome,
  MentionDispatchPolicy, MentionTurnRequest, Probability, QueueErrorKind, ResponderDecision,
  ResponderPlan, ResponderRequest, RosterSnapshot, SelectionEvaluation, SelectorCandidate,
  SelectorResult, TeamBriefing, TraceStep, Wire, WireType,
} from "./wire.js";

export type * from "./wire.js";

/** The package's version, the project's. */
export declare const version: string;
/** The name of every wire type, in `thm::json::WireTypes` order. */
export declare const WIRE_TYPES: readonly WireType[];
/** Every QueueErrorKind token, in the core's order. */
export declare const QUEUE_ERROR_KINDS: readonly QueueErrorKind[];

// ---- chat identity (SPEC §1.3) ----

/** Whether `chat` (a desk identity, or null) is the General chat. */
export declare function isGeneralChat(chat: string | null): boolean;
/** Whether two chat identities (or null) name the same conversation. */
export declare function sameConversation(a: string | null, b: string | null): boolean;
/** The conversation as dispatch keys it: General folded, names dropped (SPEC §3.3). */
export declare function dispatchConversation(conversation: In<Conversation>): DispatchConversation;

// ---- prepared teams (adr/0016) ----

declare const preparedTeam: unique symbol;
/** A chat's roster and desks, validated and indexed once: `prepareTeam` makes one when they
 * change, and every function that takes `roster` and `desks` takes `team` in their place,
 * with the same answers at a cost per call that no longer grows with the team. Frozen; the
 * two snapshots it was prepared from, as wire forms, are its only properties. */
export interface Team {
  readonly roster: RosterSnapshot;
  readonly desks: DeskSnapshot;
  readonly [preparedTeam]: true;
}
/** Validates the roster, then the desks, and indexes them; throws RosterError or DeskError
 * as the decisions would. */
export declare function prepareTeam(args: {
  readonly roster: In<RosterSnapshot>;
  readonly desks: In<DeskSnapshot>;
}): Team;
/** A call's snapshots: a prepared team, or the roster and desks themselves (not both). */
export type TeamOrSnapshots =
  | { readonly team: Team; readonly roster?: never; readonly desks?: never }
  | { readonly team?: never; readonly roster: In<RosterSnapshot>; readonly desks: In<DeskSnapshot> };
/** A call's roster: a prepared team, or the roster itself (not both). */
export type TeamOrRoster =
  | { readonly team: Team; readonly roster?: never }
  | { readonly team?: never; readonly roster: In<RosterSnapshot> };

// ---- mentions (SPEC §1.5) ----

/** The mentions of `body`, code spans and blocks masked; `supplied` are mentions the host
 * resolved itself, or null. Offsets are UTF-8 byte offsets. */
export declare function resolveMentions(body: string | Uint8Array, args: {
  readonly supplied?: readonly In<Mention>[] | null;
  readonly author: In<MentionAuthor>;
} & TeamOrSnapshots): readonly Mention[];
/** The first active agent mentioned directly, or null (SPEC §2.2). */
export declare function directResponder(mentions: readonly In<Mention>[], args: TeamOrRoster):
  string | null;
/** Every active agent the mentions reach, in order, without the responder (SPEC §2.3). */
export declare function mentionedMembers(mentions: readonly In<Mention>[], args: {
  readonly addressed_desk?: string | null;
  readonly responder?: string | null;
} & TeamOrSnapshots): readonly string[];

// ---- desks (SPEC §1.2) ----

/** null for a well-formed desk snapshot, else the DeskError it has, not thrown. */
export declare function validateDesks(desks: In<DeskSnapshot>): DeskError | null;
/** The members and lead of the desk `identity` names; throws DeskError. */
export declare function deskMembers(desks: In<DeskSnapshot>, args: { readonly identity: string }):
  { readonly members: readonly string[]; readonly lead: string | null };

// ---- the responder ladder and selection (SPEC §2) ----

/** Where the functions that explain themselves push the steps of their decision (SPEC §8):
 * an array given as `trace` receives them as `TraceStep`s, also when the function throws. */
export type Traced = { readonly trace?: TraceStep[] | null };
/** Who answers `request`: a decided plan, or one that asks the host's selector first;
 * throws RosterError, DeskError or ResponderError. */
export declare function responderPlan(request: In<ResponderRequest>, args: {
  readonly candidate_details: readonly In<SelectorCandidate>[];
} & TeamOrSnapshots & Traced): ResponderPlan;
/** The candidate a selector's free-text answer names, or null (SPEC §2.5). */
export declare function acceptSelection(output: string | Uint8Array, args: {
  readonly candidates: readonly In<SelectorCandidate>[];
}): string | null;
/** The candidate a scored answer settles on, or null (SPEC §2.5). */
export declare function acceptEvaluation(evaluation: In<SelectionEvaluation>, args: {
  readonly candidates: readonly In<SelectorCandidate>[];
  readonly minimum_confidence: Probability;
}): string | null;
/** The decision a plan settles to with the selector's result (SPEC §2.6). */
export declare function settleSelection(plan: In<ResponderPlan>, args: {
  readonly selector: In<SelectorResult>;
} & Traced): ResponderDecision;

// ---- dispatch (SPEC §3, §4) ----

/** The arguments of `mentionDispatch` and `dispatchMention`. */
export type DispatchArgs = {
  readonly policy: In<MentionDispatchPolicy>;
  readonly input: In<MentionDispatchInput>;
} & TeamOrRoster;
/** Whether a committed reply starts exactly one child turn (SPEC §3); throws RosterError. */
export declare function mentionDispatch(args: DispatchArgs & Traced): MentionDispatchDecision;
/** A host's turn queue (SPEC §4): `enqueueOnce` enqueues the child turn of `request` at most
 * once and returns what happened, synchronously (an async one is `AsyncMentionTurnQueue`).
 * To report a host failure it throws a QueueError; anything else it throws or returns
 * becomes a QueueError of kind `internal`.
 * In a class, declare the method's return type (`: thm.EnqueueOutcome`), so that a literal
 * like `{ status: "already" }` is read as one. */
export interface MentionTurnQueue {
  enqueueOnce(request: MentionTurnRequest): In<EnqueueOutcome>;
}
/** `mentionDispatch`, then, for a `one` decision only, `queue.enqueueOnce(request)` exactly
 * once (SPEC §4). Throws RosterError for a malformed roster and QueueError for a host
 * failure. A call nested more than 32 deep (a queue dispatching from inside `enqueueOnce`)
 * throws RangeError; the calls around it see it as the `cause` of an internal QueueError,
 * if their queues let it through. */
export declare function dispatchMention(queue: MentionTurnQueue, args: DispatchArgs):
  MentionDispatchOutcome;
/** A host's turn queue whose `enqueueOnce` returns a promise (pg, Prisma, any async store),
 * with the contract of `MentionTurnQueue`. */
export interface AsyncMentionTurnQueue {
  enqueueOnce(request: MentionTurnRequest): PromiseLike<In<EnqueueOutcome>> | In<EnqueueOutcome>;
}
/** `dispatchMention` for an async queue: `mentionDispatch`, then, for a `one` decision only,
 * `await queue.enqueueOnce(request)` exactly once. Resolves to what `dispatchMention` answers
 * for the same outcome, and rejects with what it throws for the same throw or rejection (the
 * queue's own QueueError as it was, anything else an internal QueueError with it as
 * `cause`), bad arguments included. */
export declare function dispatchMentionAsync(queue: AsyncMentionTurnQueue, args: DispatchArgs):
  Promise<MentionDispatchOutcome>;
/** Whether a reply in this turn may start one more (SPEC §3.4). */
export declare function mayDispatch(context: In<MentionDispatchContext>): boolean;
/** The canonical idempotency key of the child turn `request` would start (SPEC §3.3), the one
 * column or map key a queue keeps per child turn: `v1/<desk id's UTF-8 byte length>:<desk
 * id>/<c | t<root>>/<sequence>`, every General spelling folded to `General`. */
export declare function turnKey(request: In<MentionTurnRequest>): string;
/** The same for a request whose fields may be bytes (the conformance suite's): a Buffer when
 * the key's bytes are not UTF-8. */
export declare function turnKey(request: import("./conformance.js").SuiteRequest):
  string | Uint8Array;

// ---- the team briefing (SPEC §7) ----

/** The briefing for `viewer_id` in `conversation`; throws RosterError or DeskError. */
export declare function teamBriefing(args: {
  readonly viewer_id: string;
  readonly conversation: In<Conversation>;
} & TeamOrSnapshots): TeamBriefing;
/** The briefing's system text, offering dispatch when `context` allows it (SPEC §7). */
export declare function briefingText(briefing: In<TeamBriefing>,
  context?: In<MentionDispatchContext> | null): string;
/** Whether a system text offers dispatch (SPEC §7). */
export declare function offersDispatch(text: string | Uint8Array): boolean;

// ---- wording (SPEC §5) ----

/** The enums with a sentence, by name. */
export interface Displayed {
  NoDispatchReason: Wire["NoDispatchReason"];
  EnqueueRefusal: Wire["EnqueueRefusal"];
  ResponderRung: Wire["ResponderRung"];
  SelectionDisposition: Wire["SelectionDisposition"];
}
/** The sentence a host shows for `token` of the enum `type` (SPEC §5); RangeError for a
 * token that is not one. */
export declare function display<K extends keyof Displayed>(type: K, token: Displayed[K]): string;

// ---- decision traces (SPEC §8) ----

/** What an agent may be shown of a trace (SPEC §8.4): the steps on its own policy, hop and
 * identity, then the outcome's sentence; never another agent's id. */
export declare function agentSentences(trace: readonly In<TraceStep>[]): readonly string[];
/** The operator's line for one step (SPEC §8.3); it names agents, so never show it to one. */
export declare function operatorLine(step: In<TraceStep>): string;

// ---- wire forms (SPEC §6) ----

/** `value` decoded as the wire type `type` and answered as its wire form, frozen, holding
 * the decoded value so that functions read it without converting it again; `root` starts
 * the paths of errors (""). Throws DecodeError. */
export declare function fromJSON<K extends WireType>(type: K, value: unknown,
  options?: { readonly root?: string }): Wire[K];
/** `text`, one JSON document, decoded as `type` (exact u64, repeated keys refused), as
 * `fromJSON` answers it. Throws DecodeError. */
export declare function parse<K extends WireType>(type: K, text: string): Wire[K];
/** The compact wire text of `value` as `type` (SPEC §6), u64 exact. Throws DecodeError. */
export declare function stringify<K extends WireType>(type: K, value: In<Wire[K]>): string;

// ---- errors ----

/** Base class of every error thm throws: `variant`, the variant's fields, `message`. */
export declare class ThmError extends Error {
  /** `wire` is a case-file form: `{ variant, <fields>, message }`. */
  constructor(wire: { readonly variant: string; readonly message?: string; readonly [field: string]: unknown },
    options?: { cause?: unknown });
  readonly variant: string;
  /** The case-file form: `{ variant, <fields>, message }`. */
  toJSON(): Record<string, unknown>;
}
/** A value the wire decoder refused (SPEC §0.5). */
export declare class DecodeError extends ThmError {
  constructor(path: string, reason: string);
  readonly variant: "Decode";
  /** The JSON Pointer of the offending value. */
  readonly path: string;
  /** What is wrong with it. */
  readonly reason: string;
  /** The case-file form of a decode error, which has no message. */
  toJSON(): { variant: "Decode"; path: string; reason: string };
}
/** A malformed roster snapshot (SPEC §1.1): `EmptyRosterMemberId`,
 * `DuplicateRosterMemberId` (`member_id`), `EmptyPersonId` or `DuplicatePersonId`
 * (`person_id`). */
export declare class RosterError extends ThmError {
  readonly member_id?: string;
  readonly person_id?: string;
}
/** A malformed desk snapshot, or an identity that names no desk or several (SPEC §1.2):
 * `variant` and its fields. */
export declare class DeskError extends ThmError {
  readonly desk_id?: string;
  readonly identity?: string;
  readonly agent_id?: string;
  readonly missing_agent_id?: string;
}
/** A responder request the ladder cannot answer (SPEC §2.2): `DuplicateSelectorCandidate` or
 * `NoActiveResponder`, each with `agent_id`. */
export declare class ResponderError extends ThmError {
  readonly agent_id: string;
}
/** A host failure from the queue (SPEC §4). */
export declare class QueueError extends ThmError {
  constructor(kind: QueueErrorKind, message?: string, options?: { cause?: unknown });
  readonly variant: "Enqueue";
  readonly kind: QueueErrorKind;
  /** The QueueError wire form, `{ kind, message }`. */
  toJSON(): { kind: QueueErrorKind; message: string };
}
