// The SPEC §6 wire forms as TypeScript types: what thm's functions answer, exactly. Every
// answer is frozen; `Sequence` fields (u64) are always `bigint`. What a function accepts is
// `In<T>` of these: the same shapes, mutable or not, with `bigint | string | number` for a
// `Sequence` and the fields SPEC §6 marks "optional on input" optional.

/** A host message sequence number (SPEC §6 `Sequence`, u64). */
export type Sequence = bigint;

/** Who a mention names (SPEC §1.4). */
export type MentionTarget =
  | { readonly kind: "agent"; readonly id: string }
  | { readonly kind: "person"; readonly id: string }
  | { readonly kind: "desk"; readonly id: string }
  | { readonly kind: "everyone" };

/** Who wrote a message (SPEC §1.4). */
export type MentionAuthor =
  | { readonly kind: "agent"; readonly id: string }
  | { readonly kind: "person"; readonly id: string }
  | { readonly kind: "other" };

/** One resolved mention: `offset` is the UTF-8 byte offset of its `@` (SPEC §1.4), a size_t:
 * a `number`, or a `bigint` beyond 2^53 - 1 (only a mention read with `fromJSON` can be; no
 * body in memory is that long). */
export interface Mention {
  readonly target: MentionTarget;
  readonly text: string;
  readonly offset: number | bigint;
  /** Written only for a quiet mention (then true); optional on input. */
  readonly quiet?: boolean;
}

/** An agent of the roster (SPEC §1.1). */
export interface RosterMember { readonly id: string; readonly name: string | null }
/** A person of the roster (SPEC §1.1). */
export interface Person { readonly id: string; readonly label: string }
/** The roster snapshot (SPEC §1.1): all four keys required. */
export interface RosterSnapshot {
  readonly members: readonly RosterMember[];
  readonly people: readonly Person[];
  readonly retired: readonly string[];
  readonly tombstoned: readonly string[];
}

/** How a desk answers (SPEC §1.2). */
export type ResponderMode = "lead" | "auto";
/** A desk (SPEC §1.2); `responder_mode` is written only when it is `auto`. */
export interface Desk {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly members: readonly string[];
  readonly responder_mode?: ResponderMode;
}
/** An agent added to a desk (SPEC §1.2). */
export interface DeskMember { readonly desk_id: string; readonly agent_id: string }
/** A desk's member order (SPEC §1.2). */
export interface DeskOrder { readonly desk_id: string; readonly ordered: readonly string[] }
/** The desk snapshot (SPEC §1.2): all six keys required. */
export interface DeskSnapshot {
  readonly declared: readonly Desk[];
  readonly added: readonly Desk[];
  readonly member_additions: readonly DeskMember[];
  readonly orders: readonly DeskOrder[];
  readonly retired: readonly string[];
  readonly tombstoned: readonly string[];
}

/** An agent a selector may pick (SPEC §2.5). */
export interface SelectorCandidate {
  readonly id: string;
  readonly label: string;
  readonly role: string;
  readonly description: string | null;
}
/** Whether a desk may ask the host's selector (SPEC §2.1). */
export type SelectionPolicy = "allowed" | "disabled";
/** A message to find a responder for (SPEC §2.1). */
export interface ResponderRequest {
  readonly message: string;
  readonly chat: string | null;
  readonly mentions: readonly Mention[];
  readonly orchestrator_id: string;
  readonly selection_policy: SelectionPolicy;
  /** The agent that answered last in the message's thread; absent: none (SPEC §2.2). */
  readonly thread_responder?: string;
}
/** What a selector is asked (SPEC §2.5). */
export interface SelectionRequest {
  readonly message: string;
  readonly desk_id: string;
  readonly candidates: readonly SelectorCandidate[];
}
/** The rule that chose a responder (SPEC §2.2). */
export type ResponderRung =
  | "explicit_mention" | "auto_selection" | "desk_default" | "direct_agent" | "orchestrator"
  | "thread_responder";
/** What became of a selection (SPEC §2.6). */
export type SelectionDisposition =
  | "not_applicable" | "selected" | "disabled" | "unavailable" | "invalid_output";
/** Who answers, and by which rule (SPEC §2.4). */
export interface ResponderDecision {
  readonly responder_id: string;
  readonly rung: ResponderRung;
  readonly disposition: SelectionDisposition;
}
/** A decided plan, or one that asks the host's selector first (SPEC §2.4). */
export type ResponderPlan =
  | { readonly kind: "decided"; readonly decision: ResponderDecision }
  | { readonly kind: "select"; readonly request: SelectionRequest; readonly fallback: ResponderDecision };

/** A probability in parts per million, 0 to 1,000,000 (SPEC §2.5). */
export type Probability = number;
/** One candidate's probability (SPEC §2.5). */
export interface CandidateProbability { readonly candidate_id: string; readonly probability: Probability }
/** A selector's scored answer (SPEC §2.5). */
export interface SelectionEvaluation {
  readonly choice: string;
  readonly probabilities: readonly CandidateProbability[];
  readonly confidence: Probability;
}
/** What the host's selector answered (SPEC §2.6). */
export type SelectorResult =
  | { readonly kind: "absent" }
  | { readonly kind: "failed" }
  | { readonly kind: "text"; readonly output: string }
  | { readonly kind: "evaluation"; readonly evaluation: SelectionEvaluation; readonly minimum_confidence: Probability };

/** A hand-off a host allows (SPEC §3.1): a reply by `source_id` may start `target_id`. */
export interface Handoff { readonly source_id: string; readonly target_id: string }
/** The host's dispatch policy (SPEC §3.1): `max_hops` is a u32. The rules on a chain's shape
 * are each off when absent (and are written only when on): `no_return` refuses a turn
 * straight back to the previous reply's author; `max_turns_per_agent` (a u32) bounds the
 * turns one agent takes in a chain, the root's included; `allowed_handoffs`, when present, is
 * the only hand-offs allowed. */
export interface MentionDispatchPolicy {
  readonly enabled: boolean;
  readonly max_hops: number;
  readonly no_return?: boolean;
  readonly max_turns_per_agent?: number;
  readonly allowed_handoffs?: readonly Handoff[];
}
/** The committed reply's host sequence (SPEC §3.3). */
export interface DispatchKey { readonly trigger_sequence: Sequence }
/** The conversation as dispatch keys it (SPEC §3.3). */
export interface DispatchConversation { readonly desk_id: string; readonly thread_root: Sequence | null }
/** One committed agent reply (SPEC §3.1): `hop` is its depth in its chain (u32); `chain`
 * the authors of the chain's earlier replies, root first (absent: none). */
export interface MentionDispatchInput {
  readonly key: DispatchKey;
  readonly conversation: DispatchConversation;
  readonly author_id: string;
  readonly content: string;
  readonly mentions: readonly Mention[];
  readonly hop: number;
  readonly chain?: readonly string[];
}
/** The one child turn a reply starts (SPEC §3.1). */
export interface MentionTurnRequest {
  readonly key: DispatchKey;
  readonly source_id: string;
  readonly target_id: string;
  readonly content: string;
  readonly conversation: DispatchConversation;
  readonly child_hop: number;
}
/** Why a reply starts no turn (SPEC §3.2). */
export type NoDispatchReason =
  | "disabled" | "hop_limit_reached" | "source_inactive" | "no_direct_agent_mention"
  | "self_mention" | "target_inactive" | "hop_overflow" | "immediate_return"
  | "agent_turns_spent" | "handoff_not_allowed";
/** Whether a reply starts exactly one child turn (SPEC §3). */
export type MentionDispatchDecision =
  | { readonly kind: "none"; readonly reason: NoDispatchReason }
  | { readonly kind: "one"; readonly request: MentionTurnRequest };
/** Why a queue refused a request (SPEC §4). */
export type EnqueueRefusal = "unauthorized" | "target_unavailable" | "feature_disabled";
/** What a queue's `enqueueOnce` returns (SPEC §4). */
export type EnqueueOutcome =
  | { readonly status: "enqueued" }
  | { readonly status: "already" }
  | { readonly status: "refused"; readonly reason: EnqueueRefusal };
/** What `dispatchMention` answers (SPEC §4). */
export type MentionDispatchOutcome =
  | { readonly status: "not_dispatched"; readonly reason: NoDispatchReason }
  | { readonly status: "enqueued" }
  | { readonly status: "already" }
  | { readonly status: "refused"; readonly reason: EnqueueRefusal };
/** What kind of host failure a QueueError is (SPEC §4). */
export type QueueErrorKind =
  | "unavailable" | "trigger_missing" | "trigger_mismatch" | "indeterminate"
  | "invalid_request" | "internal";
/** The QueueError wire form (SPEC §4). */
export interface QueueErrorWire { readonly kind: QueueErrorKind; readonly message: string }

/** Where a message was posted (SPEC §1.3). */
export interface Conversation {
  readonly desk_id: string;
  readonly desk_name: string;
  readonly thread_root: Sequence | null;
}
/** The policy, hop and chain of the turn a reply is written in (SPEC §7). */
export interface MentionDispatchContext {
  readonly policy: MentionDispatchPolicy;
  readonly hop: number;
  readonly chain?: readonly string[];
}
/** A teammate the briefing names (SPEC §7). */
export interface BriefedTeammate {
  readonly id: string;
  readonly label: string;
  readonly role: string | null;
  readonly description: string | null;
}
/** How short replies should be (SPEC §7): both u32. */
export interface Brevity { readonly message_chars: number; readonly window: number }
/** The team briefing (SPEC §7); `brevity` is optional on input (600 / 30). */
export interface TeamBriefing {
  readonly viewer_id: string;
  readonly desk_id: string;
  readonly desk_name: string;
  readonly teammates: readonly BriefedTeammate[];
  readonly brevity: Brevity;
}

/** The rule of the spec a trace step looked at (SPEC §8.2). */
export type TraceRule =
  | "validate" | "mention" | "explicit_mention" | "thread_responder" | "chat" | "desk" | "desk_plan" | "selector_candidates" | "direct_agent" | "orchestrator" | "plan" | "selector" | "accept_selection" | "accept_evaluation" | "fallback" | "enabled" | "hop_budget" | "source" | "target" | "self_mention" | "no_return" | "agent_turns" | "handoff" | "target_active" | "hop_overflow" | "dispatch";
/** What became of a trace step's rule (SPEC §8.2). */
export type TraceOutcome = "applied" | "passed" | "skipped" | "stopped";
/** Why a trace step came out as it did (SPEC §8.2). */
export type TraceWhy =
  | "quiet" | "person" | "desk" | "everyone" | "inactive" | "general" | "unknown" | "ambiguous" | "no_active_member" | "lead" | "one_member" | "selection_disabled" | "selector_asked" | "duplicate_detail" | "id" | "name" | "no_match" | "absent" | "failed" | "text" | "evaluation" | "empty" | "no_candidate" | "several_candidates" | "invalid_confidence" | "below_minimum_confidence" | "entry_count" | "not_one_entry" | "invalid_probability" | "choice_not_candidate" | "sum_not_scale" | "more_probable_entry" | "unavailable" | "invalid_output";
/** One step of a decision's trace (SPEC §8.2): `subject` is a mention's text, an id or a
 * normalized answer ("" for none); `offset` a mention's byte offset (a `bigint` only beyond
 * 2^53 - 1, as `Mention`'s); `count` the number the rule turned on (members, candidates, hop,
 * child hop, a target's turns in the chain). */
export interface TraceStep {
  readonly rule: TraceRule;
  readonly outcome: TraceOutcome;
  readonly why: TraceWhy | null;
  readonly subject: string;
  readonly offset: number | bigint | null;
  readonly count: number | null;
}

/** Every wire type by its name (`WIRE_TYPES`). */
export interface Wire {
  MentionTarget: MentionTarget; MentionAuthor: MentionAuthor; Mention: Mention;
  RosterMember: RosterMember; Person: Person; RosterSnapshot: RosterSnapshot;
  ResponderMode: ResponderMode; Desk: Desk; DeskMember: DeskMember; DeskOrder: DeskOrder;
  DeskSnapshot: DeskSnapshot; SelectorCandidate: SelectorCandidate;
  SelectionPolicy: SelectionPolicy; ResponderRequest: ResponderRequest;
  SelectionRequest: SelectionRequest; ResponderRung: ResponderRung;
  SelectionDisposition: SelectionDisposition; ResponderDecision: ResponderDecision;
  ResponderPlan: ResponderPlan; Probability: Probability;
  CandidateProbability: CandidateProbability; SelectionEvaluation: SelectionEvaluation;
  SelectorResult: SelectorResult; Handoff: Handoff; MentionDispatchPolicy: MentionDispatchPolicy;
  DispatchKey: DispatchKey; DispatchConversation: DispatchConversation;
  MentionDispatchInput: MentionDispatchInput; MentionTurnRequest: MentionTurnRequest;
  NoDispatchReason: NoDispatchReason; MentionDispatchDecision: MentionDispatchDecision;
  EnqueueRefusal: EnqueueRefusal; EnqueueOutcome: EnqueueOutcome;
  MentionDispatchOutcome: MentionDispatchOutcome; Conversation: Conversation;
  MentionDispatchContext: MentionDispatchContext; QueueErrorKind: QueueErrorKind;
  QueueError: QueueErrorWire; Brevity: Brevity; BriefedTeammate: BriefedTeammate;
  TeamBriefing: TeamBriefing; TraceStep: TraceStep;
}
/** The name of a wire type. */
export type WireType = keyof Wire;

// Fields SPEC §6 lets an input leave out.
type OptionalOnInput = "quiet" | "responder_mode" | "brevity";

/** What a function accepts where it answers a `T`: the same shape, with a `Sequence` also
 * as a decimal string or a safe integer, `quiet`, `responder_mode` and `brevity` optional,
 * and arrays mutable or not. */
export type In<T> = T extends bigint
  ? bigint | string | number
  : T extends readonly (infer E)[]
    ? readonly In<E>[]
    : T extends object
      ? { readonly [K in keyof T as K extends OptionalOnInput ? never : K]: In<T[K]> } & {
          readonly [K in keyof T as K extends OptionalOnInput ? K : never]?: In<T[K]>;
        }
      : T;
