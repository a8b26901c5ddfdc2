// @ts-check
// A LangGraph.js team, a supervisor, a researcher and a writer, routed by thm: thm's
// responder ladder chooses who answers a person's message (in a thread, the agent that
// answered there last keeps it), and every agent → agent mention in a reply goes through
// thm's dispatch under the host's policy (`max_hops`, and a shape such as `no_return`), so a
// chain of handoffs always ends. Each agent is a graph node that calls a chat model; the models here
// are scripted, so the example runs offline, and its test (team.test.mjs) knows each reply.
import { pathToFileURL } from "node:url";
import { SimpleChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { Command, END, MessagesValue, START, StateGraph, StateSchema } from "@langchain/langgraph";
import * as thm from "thm";
import { z } from "zod";

/** @typedef {import("@langchain/core/messages").BaseMessage} BaseMessage */
/** @typedef {import("thm").DispatchConversation} DispatchConversation */
/** @typedef {import("thm").EnqueueOutcome} EnqueueOutcome */
/** @typedef {import("thm").MentionDispatchPolicy} MentionDispatchPolicy */
/** @typedef {import("thm").MentionTurnRequest} MentionTurnRequest */

/** The agents, in roster order. The supervisor is the orchestrator: it answers a message
 * that names no agent. */
export const AGENTS = /** @type {const} */ (["supervisor", "researcher", "writer"]);
/** @typedef {typeof AGENTS[number]} AgentId */

/**
 * @param {string} id
 * @returns {id is AgentId}
 */
function isAgent(id) {
  return AGENTS.some((agent) => agent === id);
}

// The host's snapshots, decoded once by fromJSON: every call below reads them without
// converting them again. A real host builds them from its own tables.
const ROSTER = thm.fromJSON("RosterSnapshot", {
  members: [
    { id: "supervisor", name: "Supervisor" },
    { id: "researcher", name: "Researcher" },
    { id: "writer", name: "Writer" },
  ],
  people: [{ id: "ada", label: "Ada" }],
  retired: [],
  tombstoned: [],
});
const DESKS = thm.fromJSON("DeskSnapshot", {
  declared: [], added: [], member_additions: [], orders: [], retired: [], tombstoned: [],
});
/** Where a message is said: the General channel, or a thread in it (rooted at the host
 * sequence of its first message). No desks here.
 * @param {bigint | null} thread */
function conversationOf(thread) {
  return thm.fromJSON("Conversation", { desk_id: "General", desk_name: "General", thread_root: thread });
}
const CONVERSATION = conversationOf(null);
/** The channel as dispatch keys it (SPEC §3.3). */
export const SCOPE = thm.dispatchConversation(CONVERSATION);

/** The host's dispatch policy: a reply may start a child turn, and a chain of such turns
 * stops after three. thm sets no limit of its own; the host chooses it. */
export const POLICY = thm.fromJSON("MentionDispatchPolicy", { enabled: true, max_hops: 3 });

/** The same policy with a shape: a reply may not hand the turn straight back to the agent
 * that handed it over (SPEC §3.1 `no_return`), so a ping-pong ends at its first return. */
export const NO_RETURN = thm.fromJSON("MentionDispatchPolicy", { enabled: true, max_hops: 3, no_return: true });

/** The graph's state: the conversation so far; the hop of the turn the next node runs in (0
 * for the agent answering a person; a child turn runs at its request's `child_hop`); the
 * chain, the agents whose replies led to that turn, root first (thm's `chain`, which the
 * host derives from its rows as it does the hop); and the thread, the root sequence as a
 * decimal string, or null in the channel. */
export const TeamState = new StateSchema({
  messages: MessagesValue,
  hop: z.number().int().nonnegative().default(0),
  chain: z.array(z.string()).default([]),
  thread: z.string().nullable().default(null),
});
/** @typedef {typeof TeamState.State} TeamStateValue */

/**
 * A chat model that answers from a fixed script, line after line and then from the top
 * again, and keeps the prompts it was given. It is a real LangChain chat model
 * (SimpleChatModel is a BaseChatModel), called by the graph as any provider's would be.
 */
export class ScriptedChatModel extends SimpleChatModel {
  /** @param {readonly string[]} script */
  constructor(script) {
    super({});
    if (script.length === 0) throw new RangeError("a script needs at least one reply");
    this.script = script;
    /** One list of messages per call, as the model received it.
     * @type {BaseMessage[][]} */
    this.prompts = [];
  }

  _llmType() {
    return "scripted";
  }

  /** @param {BaseMessage[]} messages */
  async _call(messages) {
    this.prompts.push(messages);
    return this.script[(this.prompts.length - 1) % this.script.length];
  }
}

/**
 * The host's turn queue, thm's `MentionTurnQueue` port, in memory: at most one child turn
 * per (conversation, trigger sequence), so that a reply dispatched a second time (say,
 * redelivered after a crash) answers `already` and starts nothing. A real host writes the
 * turn in one database transaction (kit/spec/queue-conformance.md).
 */
export class TurnQueue {
  /** @type {Map<string, MentionTurnRequest>} */
  turns = new Map();

  /**
   * @param {MentionTurnRequest} request
   * @returns {EnqueueOutcome}
   */
  enqueueOnce(request) {
    const key = TurnQueue.key(request.conversation, request.key.trigger_sequence);
    if (this.turns.has(key)) return { status: "already" };
    this.turns.set(key, request);
    return { status: "enqueued" };
  }

  /**
   * The child turn the reply `sequence` started, if any.
   * @param {DispatchConversation} conversation
   * @param {bigint} sequence
   */
  turn(conversation, sequence) {
    return this.turns.get(TurnQueue.key(conversation, sequence));
  }

  /** One string per (conversation, sequence) pair and one pair per string (SPEC §3.3).
   * @param {DispatchConversation} conversation
   * @param {bigint} sequence */
  static key(conversation, sequence) {
    return JSON.stringify([conversation.desk_id, conversation.thread_root?.toString() ?? null,
      sequence.toString()]);
  }
}

/** The host's sequence of a message, kept as its LangChain message id.
 * @param {BaseMessage} message */
function sequenceOf(message) {
  if (message.id === undefined) throw new Error("a message is posted without its sequence");
  return BigInt(message.id);
}

/** A team, its graph, its models and its queue; `post` runs one person's message through it. */
export class Team {
  /** The host's message sequence, as a chat store numbers its rows: each message posted,
   * a person's, an agent's or the host's own, takes the next one. */
  #sequence = 0n;
  /** The agent that last replied in each thread, by root sequence: what a chat store reads
   * from its newest agent row in the thread, and thm's `thread_responder`.
   * @type {Map<string, AgentId>} */
  #answered = new Map();

  /**
   * @param {Record<AgentId, readonly string[]>} scripts what each agent's model replies
   * @param {{ queue?: TurnQueue, policy?: MentionDispatchPolicy }} [options]
   */
  constructor(scripts, { queue = new TurnQueue(), policy = POLICY } = {}) {
    this.queue = queue;
    this.policy = policy;
    /** @type {Record<AgentId, ScriptedChatModel>} */
    this.models = {
      supervisor: new ScriptedChatModel(scripts.supervisor),
      researcher: new ScriptedChatModel(scripts.researcher),
      writer: new ScriptedChatModel(scripts.writer),
    };
    // An agent node ends its step with a Command: to the agent its reply hands a turn to,
    // or to END. `ends` lists where it may go, for LangGraph's checks and drawings.
    const ends = [...AGENTS, END];
    /** @param {AgentId} id */
    const agent = (id) => /** @param {TeamStateValue} state */ (state) => this.#turn(id, state);
    this.graph = new StateGraph(TeamState)
      .addNode("supervisor", agent("supervisor"), { ends })
      .addNode("researcher", agent("researcher"), { ends })
      .addNode("writer", agent("writer"), { ends })
      .addConditionalEdges(START, (state) => this.#responder(state), [...AGENTS])
      .compile();
  }

  /** @returns {string} the next message id */
  #next() {
    this.#sequence += 1n;
    return this.#sequence.toString();
  }

  /**
   * Posts `text` from the person `author`, in the channel or in the thread rooted at
   * `thread` (a message's id), and runs the team until no turn is left.
   * @param {string} text
   * @param {{ author?: string, thread?: string | null }} [where]
   * @returns {Promise<{ ran: string[], messages: BaseMessage[], id: string }>} the nodes that
   *   ran, in order, the conversation at the end, and the posted message's id
   */
  async post(text, { author = "ada", thread = null } = {}) {
    const id = this.#next();
    const message = new HumanMessage({ content: text, name: author, id });
    /** @type {string[]} */
    const ran = [];
    /** @type {BaseMessage[]} */
    let messages = [];
    // "updates" names each node as it finishes a step, which is how the test counts turns
    // from LangGraph's side; "values" is the state after each step.
    const stream = await this.graph.stream({ messages: [message], hop: 0, chain: [], thread },
                                           { streamMode: ["updates", "values"] });
    for await (const [mode, chunk] of stream) {
      if (mode === "updates") ran.push(...Object.keys(chunk));
      else messages = chunk.messages;
    }
    return { ran, messages, id };
  }

  /**
   * Who answers a person's message (SPEC §2): the agent it mentions, else the orchestrator.
   * @param {TeamStateValue} state
   * @returns {AgentId}
   */
  #responder(state) {
    const message = state.messages[state.messages.length - 1];
    const author = { kind: /** @type {const} */ ("person"), id: message.name ?? "" };
    const mentions = thm.resolveMentions(message.text, { author, roster: ROSTER, desks: DESKS });
    // In a thread, the agent that answered there last keeps answering, unless the message
    // names another agent (SPEC §2.2): thm's `thread_responder` rung.
    const last = state.thread === null ? undefined : this.#answered.get(state.thread);
    const plan = thm.responderPlan(
      { message: message.text, chat: null, mentions, orchestrator_id: "supervisor",
        selection_policy: "allowed", ...(last === undefined ? {} : { thread_responder: last }) },
      { roster: ROSTER, desks: DESKS, candidate_details: [] });
    // A `select` plan comes only from a desk in auto mode, which this team has none of. A
    // host with one asks its selector model once and settles with the answer; with no
    // selector (`absent`) the desk's first member answers.
    const decision = plan.kind === "decided"
      ? plan.decision
      : thm.settleSelection(plan, { selector: { kind: "absent" } });
    if (!isAgent(decision.responder_id)) throw new Error(`no node for ${decision.responder_id}`);
    return decision.responder_id;
  }

  /**
   * One agent's turn: its model replies, and the reply may hand one more turn to a teammate.
   * @param {AgentId} id
   * @param {TeamStateValue} state
   */
  async #turn(id, state) {
    // The model is briefed on its team and, only while some teammate could still be handed
    // a turn (SPEC §7), told that `@id` hands one on: not at the last hop, and not when the
    // policy's shape leaves no one.
    const thread = state.thread === null ? null : BigInt(state.thread);
    const briefing = thm.briefingText(
      thm.teamBriefing({ viewer_id: id, conversation: conversationOf(thread), desks: DESKS, roster: ROSTER }),
      { policy: this.policy, hop: state.hop, chain: state.chain });
    const reply = await this.models[id].invoke([new SystemMessage(briefing), ...state.messages]);
    const message = new AIMessage({ content: reply.text, name: id, id: this.#next() });
    if (state.thread !== null) this.#answered.set(state.thread, id);
    return this.handoff(message, state.hop, state.chain,
                        thm.dispatchConversation(conversationOf(thread)));
  }

  /**
   * Where a committed agent reply, written in a turn at `hop` after the replies of `chain`,
   * sends the graph (SPEC §3, §4): to the one teammate it hands a turn to, or to END.
   * @param {AIMessage} message the reply; `name` its author, `id` its sequence
   * @param {number} hop
   * @param {readonly string[]} [chain] the authors of the chain's earlier replies, root first
   * @param {DispatchConversation} [scope] where it was said, as dispatch keys it
   */
  handoff(message, hop, chain = [], scope = SCOPE) {
    const author = message.name ?? "";
    const sequence = sequenceOf(message);
    const mentions = thm.resolveMentions(message.text, {
      author: { kind: "agent", id: author }, roster: ROSTER, desks: DESKS,
    });
    const outcome = thm.dispatchMention(this.queue, {
      policy: this.policy,
      input: { key: { trigger_sequence: sequence }, conversation: scope, author_id: author,
               content: message.text, mentions, hop, chain },
      roster: ROSTER,
    });
    switch (outcome.status) {
      case "enqueued": {
        // The outcome says what the queue did, not what it was given: the child turn to
        // run is the one the queue now holds under this reply's key.
        const turn = this.queue.turn(scope, sequence);
        if (turn === undefined) throw new Error(`the queue holds no turn for ${sequence}`);
        return new Command({
          goto: turn.target_id,
          update: { messages: [message], hop: turn.child_hop, chain: [...chain, author] },
        });
      }
      case "already":
        // This reply's child turn was enqueued before: it is not started a second time.
        return new Command({ goto: END, update: { messages: [message] } });
      case "refused":
        return this.#stop(message, thm.display("EnqueueRefusal", outcome.reason));
      case "not_dispatched":
        // A reply that hands nothing to anyone is how a chain ends normally: nothing to
        // explain. Any other reason is said to people, in words that name no agent (SPEC
        // §5), so that the notice cannot wake anyone in turn.
        if (outcome.reason === "no_direct_agent_mention") {
          return new Command({ goto: END, update: { messages: [message] } });
        }
        return this.#stop(message, thm.display("NoDispatchReason", outcome.reason));
    }
  }

  /**
   * Ends the run after `message`, with the host's notice of why no turn was started.
   * @param {AIMessage} message
   * @param {string} sentence
   */
  #stop(message, sentence) {
    const notice = new SystemMessage({ content: sentence, name: "host", id: this.#next() });
    return new Command({ goto: END, update: { messages: [message, notice] } });
  }
}

// `node team.mjs`: the supervisor and the researcher hand a task back and forth, and thm
// stops them after the third handoff (`--no-return`: at the first return). Printed, not
// asserted: team.test.mjs asserts it.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const team = new Team({
    supervisor: ["@researcher look again"],
    researcher: ["@supervisor back to you"],
    writer: ["Release notes for 0.1.0"],
  }, { policy: process.argv.includes("--no-return") ? NO_RETURN : POLICY });
  const { messages } = await team.post("please get the facts straight");
  for (const message of messages) console.log(`${message.id} ${message.name}: ${message.text}`);
}
