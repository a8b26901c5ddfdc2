// @ts-check
// The LangGraph team of team.mjs, on the real @langchain/langgraph, offline: a message that
// names one agent is answered by that agent alone; the supervisor ↔ worker ping-pong that
// never ends under plain mention routing ends under thm at the host's max_hops, and at its
// first return with `no_return`; and a thread keeps the agent that answered in it.
import assert from "node:assert/strict";
import { test } from "node:test";

// Offline: any request made from here on fails, and is counted so that a library that
// swallows the failure (a tracer, say) is still caught. The libraries are imported after
// the stub, so that one that keeps a reference to `fetch` when it loads keeps this one.
/** @type {string[]} */
const requests = [];
globalThis.fetch = async (/** @type {string | URL | Request} */ input) => {
  requests.push(String(input instanceof Request ? input.url : input));
  throw new Error("offline: the example makes no network request");
};
const { AIMessage, HumanMessage } = await import("@langchain/core/messages");
const { Command, END, GraphRecursionError, MessagesValue, START, StateGraph, StateSchema } =
  await import("@langchain/langgraph");
const thm = await import("thm");
const { AGENTS, NO_RETURN, POLICY, SCOPE, ScriptedChatModel, Team, TurnQueue } =
  await import("./team.mjs");

/** @typedef {import("./team.mjs").AgentId} AgentId */
/** @typedef {import("@langchain/core/messages").BaseMessage} BaseMessage */

/** A supervisor and a worker that always hand the task back to each other: the loop people
 * building on LangGraph report, with the writer standing by. */
const PING_PONG = {
  supervisor: ["@researcher look again", "@researcher still not right, look again"],
  researcher: ["@supervisor back to you", "@supervisor done, back to you"],
  writer: ["I never get a turn here"],
};
const HOP_BUDGET_SPENT = "this chain of handoffs has used up its hop budget";

/** How many times each agent's model was called. @param {InstanceType<typeof Team>} team */
function calls(team) {
  return Object.fromEntries(AGENTS.map((id) => [id, team.models[id].prompts.length]));
}

/** The child turns in the queue: who handed to whom, at which hop.
 * @param {InstanceType<typeof Team>} team */
function turns(team) {
  return [...team.queue.turns.values()]
    .map((turn) => [turn.source_id, turn.target_id, turn.child_hop]);
}

test("a message that mentions the writer is answered by the writer alone", async () => {
  const team = new Team({
    supervisor: ["@writer over to you"],
    researcher: ["@writer here are the facts"],
    writer: ["Release notes for 0.1.0"],
  });
  const { ran, messages } = await team.post("@writer please draft the release notes");

  assert.deepEqual(ran, ["writer"]);
  assert.deepEqual(calls(team), { supervisor: 0, researcher: 0, writer: 1 });
  assert.equal(team.queue.turns.size, 0);
  const reply = messages[messages.length - 1];
  assert.equal(reply.name, "writer");
  assert.equal(reply.text, "Release notes for 0.1.0");
  assert.deepEqual(requests, []);
});

test("a message that names no agent goes to the orchestrator, who may hand it on", async () => {
  const team = new Team({
    supervisor: ["@writer please draft the release notes"],
    researcher: ["not asked"],
    writer: ["Release notes for 0.1.0"],
  });
  const { ran, messages } = await team.post("we need release notes");

  assert.deepEqual(ran, ["supervisor", "writer"]);
  assert.deepEqual(turns(team), [["supervisor", "writer", 1]]);
  assert.deepEqual(messages.map((message) => [message.name, message.text]), [
    ["ada", "we need release notes"],
    ["supervisor", "@writer please draft the release notes"],
    ["writer", "Release notes for 0.1.0"],
  ]);
  assert.deepEqual(requests, []);
});

/**
 * The same team routed as a LangGraph app routes a handoff when nothing bounds it: to the
 * agent the reply names (`@id`), else to END. A person's message goes to the agent it
 * names, else to the supervisor.
 * @param {Record<AgentId, readonly string[]>} scripts
 */
function mentionRouted(scripts) {
  const models = {
    supervisor: new ScriptedChatModel(scripts.supervisor),
    researcher: new ScriptedChatModel(scripts.researcher),
    writer: new ScriptedChatModel(scripts.writer),
  };
  /** @param {string} text */
  const named = (text) => AGENTS.find((id) => new RegExp(`@${id}\\b`).test(text));
  /** @param {{ messages: BaseMessage[] }} state */
  const last = (state) => state.messages[state.messages.length - 1];
  /** @param {AgentId} id */
  const agent = (id) =>
    /** @param {{ messages: BaseMessage[] }} state */
    async (state) => {
      const reply = await models[id].invoke(state.messages);
      const message = new AIMessage({ content: reply.text, name: id });
      return new Command({ goto: named(reply.text) ?? END, update: { messages: [message] } });
    };
  const ends = [...AGENTS, END];
  const graph = new StateGraph(new StateSchema({ messages: MessagesValue }))
    .addNode("supervisor", agent("supervisor"), { ends })
    .addNode("researcher", agent("researcher"), { ends })
    .addNode("writer", agent("writer"), { ends })
    .addConditionalEdges(START, (state) => named(last(state).text) ?? "supervisor", [...AGENTS])
    .compile();
  return { graph, models };
}

test("without thm, the ping-pong runs until LangGraph's recursion limit, 25", async () => {
  const { graph, models } = mentionRouted(PING_PONG);
  const run = graph.invoke({ messages: [new HumanMessage("please get the facts straight")] });
  await assert.rejects(run, (error) => {
    assert.ok(error instanceof GraphRecursionError, String(error));
    assert.equal(error.name, "GraphRecursionError");
    assert.match(error.message, /^Recursion limit of 25 reached without hitting a stop condition/);
    return true;
  });
  // One step per agent turn: 25 turns, the two alternating, the last one still handing on.
  assert.deepEqual([models.supervisor.prompts.length, models.researcher.prompts.length,
                    models.writer.prompts.length], [13, 12, 0]);
  assert.deepEqual(requests, []);
});

test("with thm, the ping-pong stops after max_hops child turns, and people hear why", async () => {
  assert.equal(POLICY.max_hops, 3);
  const team = new Team(PING_PONG);
  const { ran, messages } = await team.post("please get the facts straight");

  // The supervisor answers at hop 0; each reply then starts one child turn, at hops 1, 2, 3.
  assert.deepEqual(ran, ["supervisor", "researcher", "supervisor", "researcher"]);
  assert.deepEqual(turns(team), [
    ["supervisor", "researcher", 1],
    ["researcher", "supervisor", 2],
    ["supervisor", "researcher", 3],
  ]);
  // The reply written at hop 3 still names the supervisor, but starts nothing: the host
  // says so, in thm's sentence (SPEC §5), and the run ends.
  const [reply, notice] = messages.slice(-2);
  assert.deepEqual([reply.name, reply.text], ["researcher", "@supervisor done, back to you"]);
  assert.equal(notice.name, "host");
  assert.equal(notice.text, thm.display("NoDispatchReason", "hop_limit_reached"));
  assert.equal(notice.text, HOP_BUDGET_SPENT);
  // Every message took its own host sequence, so every trigger key is distinct.
  assert.deepEqual(messages.map((message) => message.id), ["1", "2", "3", "4", "5", "6"]);
  // Only the turns with budget left were invited to hand on (SPEC §7).
  const briefings = [...team.models.supervisor.prompts, ...team.models.researcher.prompts]
    .map((prompt) => thm.offersDispatch(prompt[0].text));
  assert.deepEqual(briefings, [true, true, true, false]); // supervisor 0, 2; researcher 1, 3
  assert.deepEqual(requests, []);
});

test("a reply dispatched twice starts its child turn once", async () => {
  const team = new Team(PING_PONG);
  const reply = new AIMessage({ content: "@researcher look again", name: "supervisor", id: "41" });

  const first = team.handoff(reply, 0);
  const again = team.handoff(reply, 0);
  assert.deepEqual(first.goto, ["researcher"]);  // Command keeps goto as a list
  assert.deepEqual(again.goto, [END]);
  assert.equal(team.queue.turns.size, 1);
  assert.equal(team.queue.turn(SCOPE, 41n)?.child_hop, 1);
});

test("a turn the queue refuses is not run, and the notice names no one", async () => {
  /** A store that finds the target unavailable (say, the agent was just paused). */
  class Paused extends TurnQueue {
    /** @returns {import("thm").EnqueueOutcome} */
    enqueueOnce() {
      return { status: "refused", reason: "target_unavailable" };
    }
  }
  const team = new Team(PING_PONG, { queue: new Paused() });
  const { ran, messages } = await team.post("please get the facts straight");

  assert.deepEqual(ran, ["supervisor"]);
  const notice = messages[messages.length - 1];
  assert.equal(notice.text, thm.display("EnqueueRefusal", "target_unavailable"));
  assert.doesNotMatch(notice.text, /@|researcher/);
  assert.deepEqual(requests, []);
});

test("with no_return, the same ping-pong stops at the first return", async () => {
  const team = new Team(PING_PONG, { policy: NO_RETURN });
  const { ran, messages } = await team.post("please get the facts straight");

  // One handoff, supervisor → researcher; the researcher's "@supervisor back to you" would
  // hand the turn straight back, so it starts nothing, where max_hops alone allowed three.
  assert.deepEqual(ran, ["supervisor", "researcher"]);
  assert.deepEqual(turns(team), [["supervisor", "researcher", 1]]);
  const [reply, notice] = messages.slice(-2);
  assert.deepEqual([reply.name, reply.text], ["researcher", "@supervisor back to you"]);
  assert.equal(notice.name, "host");
  assert.equal(notice.text, thm.display("NoDispatchReason", "immediate_return"));
  assert.doesNotMatch(notice.text, /@|supervisor|researcher/);
  // The researcher was still invited to hand on: the writer is a teammate it could start.
  assert.equal(thm.offersDispatch(team.models.researcher.prompts[0][0].text), true);
  assert.deepEqual(requests, []);
});

test("a thread keeps its agent: a follow-up goes to whoever answered there last", async () => {
  const team = new Team({
    supervisor: ["Let me look into it.", "@researcher can you check this?"],
    researcher: ["The facts check out.", "Two sources: the changelog and the spec."],
    writer: ["Release notes for 0.1.0"],
  }, { policy: NO_RETURN });
  const first = await team.post("are the facts in the draft right?");
  assert.deepEqual(first.ran, ["supervisor"]);  // in the channel: no thread yet

  // The person replies in a thread under the supervisor's answer; the supervisor answers
  // there (the orchestrator), hands to the researcher, and the researcher replies last.
  const root = first.messages[1].id ?? "";
  const opened = await team.post("please double-check", { thread: root });
  assert.deepEqual(opened.ran, ["supervisor", "researcher"]);
  // A follow-up that names no one stays with the researcher, not the orchestrator.
  const followUp = await team.post("and the sources?", { thread: root });
  assert.deepEqual(followUp.ran, ["researcher"]);
  assert.equal(followUp.messages.at(-1)?.text, "Two sources: the changelog and the spec.");
  // Naming another agent still takes the thread there, and in the channel the ladder is as
  // before: the orchestrator answers.
  assert.deepEqual((await team.post("@writer draft it", { thread: root })).ran, ["writer"]);
  assert.deepEqual((await team.post("anything else?")).ran, ["supervisor"]);
  assert.deepEqual(requests, []);
});
