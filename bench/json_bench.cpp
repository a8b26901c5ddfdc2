// The wire forms (thm::json, SPEC §6) against nlohmann's DOM, on the same text in the same run.
//
// Decode: `thm::json::decode<T>(text)` against `nlohmann::json::parse(text)`, the floor of any
// decoder that builds a DOM first (ours does: a strict SAX tree builder, then `from_value`).
// The goal is decode within 1.5x of that floor. Encode: `thm::json::encode(value)`
// against `dump()` of a DOM of the same document, built before the timed loop.
//
// Names are `<operation>.<case>/<impl>/size:<size>`: operation json_decode or json_encode,
// case the wire type (dispatch_input = MentionDispatchInput, responder_request =
// ResponderRequest), impl thm or floor, size small (a one-line message with two mentions:
// ~350 bytes of JSON) or large (a twelve-paragraph report with code blocks, quotes,
// backslashes and non-ASCII text, and 37 mentions, 25 of them quiet repeats: ~9 KiB).
#include <benchmark/benchmark.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "alloc_count.hpp"
#include "thm/json/json.hpp"

namespace {

enum class Size { Small, Large };

// A message body assembled piece by piece, with its mentions at their byte offsets. A target
// named a second time is quiet, as `resolve_mentions` normalizes repeats (SPEC §1.5).
struct Body {
  std::string text;
  std::vector<thm::Mention> mentions;

  Body& append(std::string_view piece) {
    text += piece;
    return *this;
  }
  Body& mention(thm::MentionTarget target, std::string_view token) {
    bool seen = false;
    for (const thm::Mention& earlier : mentions) seen = seen || earlier.target == target;
    mentions.push_back({.target = std::move(target),
                        .text = std::string(token),
                        .offset = text.size(),
                        .quiet = seen});
    text += token;
    return *this;
  }
};

// The agents mentioned (the author, alice, never mentions herself).
constexpr std::array<std::string_view, 9> kAgents = {"bob",   "carol", "dana", "erin", "frank",
                                                     "grace", "heidi", "ivan", "judy"};

thm::MentionTarget agent(std::size_t i) {
  return thm::AgentTarget{std::string(kAgents[i % kAgents.size()])};
}
std::string at(std::size_t i) {
  std::string token = "@";
  token += kAgents[i % kAgents.size()];
  return token;
}

Body small_body() {
  Body body;
  body.mention(agent(0), at(0))
      .append(" can you review the retry change in `queue.cpp`? It passes locally; ")
      .mention(thm::PersonTarget{"p1"}, "@Ada")
      .append(" wants it in today's release.");
  return body;
}

// Twelve paragraphs of a status report, three mentions each, then `@everyone`.
Body large_body() {
  Body body;
  for (std::size_t i = 0; i < 12; ++i) {
    const std::string step = std::to_string(i + 1);
    body.append("### Step " + step + ": the retry budget of `queue/worker_" + step + "`\n\n")
        .mention(agent(2 * i), at(2 * i))
        .append(
            " I reran the suite on the branch; the flaky case is still "
            "`QueueTest.RetryAfterTimeout`. The log says:\n\n```\n2026-11-30T10:0" +
            std::to_string(i % 10) +
            ":12Z WARN queue: retry 3/5 for key \"eng/7/41\" after 250 ms "
            "(db C:\\tmp\\queue.db, \"busy\")\n```\n\nCould ")
        .mention(agent(2 * i + 1), at(2 * i + 1))
        .append(
            " check whether the backoff should be capped? p99 went from 12 ms to 48 ms (×4) "
            "since the naïve fix — clamping at 1 s — landed; jitter looks better. ")
        .mention(i % 2 == 0 ? thm::MentionTarget{thm::DeskTarget{"eng"}}
                            : thm::MentionTarget{thm::PersonTarget{"p1"}},
                 i % 2 == 0 ? "@#eng" : "@Ada")
        .append(" FYI.\n\n- [x] reproduce locally\n- [ ] bisect the scheduler change\n\n");
  }
  body.append("Summary for ").mention(thm::EveryoneTarget{}, "@everyone").append(": see above.");
  return body;
}

Body body(Size size) { return size == Size::Small ? small_body() : large_body(); }

// A value and its wire text (`encode(value)`), made once per type and size.
template <class T>
struct Document {
  T value;
  std::string text = thm::json::encode(value);
};

Document<thm::MentionDispatchInput> dispatch_input(Size size) {
  Body reply = body(size);
  return {.value = {.key = {.trigger_sequence = 184'467},
                    .conversation = {.desk_id = "eng", .thread_root = 184'402},
                    .author_id = "alice",
                    .content = std::move(reply.text),
                    .mentions = std::move(reply.mentions),
                    .hop = 1}};
}

Document<thm::ResponderRequest> responder_request(Size size) {
  Body message = body(size);
  return {.value = {.message = std::move(message.text),
                    .chat = "eng",
                    .mentions = std::move(message.mentions),
                    .orchestrator_id = "orch",
                    .selection_policy = thm::SelectionPolicy::Allowed}};
}

// Whether the document decodes to the value it was encoded from; skips the bench if not.
template <class T>
bool round_trips(benchmark::State& state, const Document<T>& document) {
  const auto decoded = thm::json::decode<T>(document.text);
  if (!decoded) {
    state.SkipWithError(("decode failed: " + decoded.error().reason).c_str());
    return false;
  }
  if (*decoded != document.value) {
    state.SkipWithError("decode(encode(x)) != x");
    return false;
  }
  return true;
}

// Items are documents (`time_calls`); bytes are bytes of wire text, the same for thm and
// floor.
template <class T>
void set_bytes(benchmark::State& state, const Document<T>& document) {
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(document.text.size()));
}

template <class T>
void BM_JsonDecode(benchmark::State& state, const Document<T>& document) {
  if (!round_trips(state, document)) return;
  thm::bench::time_calls(state, [&] { return thm::json::decode<T>(document.text); });
  set_bytes(state, document);
}

template <class T>
void BM_JsonDecodeFloor(benchmark::State& state, const Document<T>& document) {
  if (!round_trips(state, document)) return;
  thm::bench::time_calls(state, [&] { return nlohmann::json::parse(document.text); });
  set_bytes(state, document);
}

template <class T>
void BM_JsonEncode(benchmark::State& state, const Document<T>& document) {
  if (!round_trips(state, document)) return;
  thm::bench::time_calls(state, [&] { return thm::json::encode(document.value); });
  set_bytes(state, document);
}

template <class T>
void BM_JsonEncodeFloor(benchmark::State& state, const Document<T>& document) {
  if (!round_trips(state, document)) return;
  const auto dom = nlohmann::json::parse(document.text);
  thm::bench::time_calls(state, [&] { return dom.dump(); });
  set_bytes(state, document);
}

// Registers decode and encode, thm and floor, for one document. The four names share the
// suffix string, so each thm bench and its floor differ only in the impl segment.
template <class T>
void register_document(std::string_view type_case, std::string_view size_name, Document<T> built) {
  const auto document = std::make_shared<const Document<T>>(std::move(built));
  const std::string suffix = "/size:" + std::string(size_name);
  const auto add = [&](std::string_view operation, std::string_view impl, auto bench) {
    const std::string name =
        std::string(operation) + "." + std::string(type_case) + "/" + std::string(impl) + suffix;
    benchmark::RegisterBenchmark(name.c_str(), [document, bench](benchmark::State& state) {
      bench(state, *document);
    })->Unit(benchmark::kMicrosecond);
  };
  add("json_decode", "thm", BM_JsonDecode<T>);
  add("json_decode", "floor", BM_JsonDecodeFloor<T>);
  add("json_encode", "thm", BM_JsonEncode<T>);
  add("json_encode", "floor", BM_JsonEncodeFloor<T>);
}

}  // namespace

int main(int argc, char** argv) {
  register_document("dispatch_input", "small", dispatch_input(Size::Small));
  register_document("dispatch_input", "large", dispatch_input(Size::Large));
  register_document("responder_request", "small", responder_request(Size::Small));
  register_document("responder_request", "large", responder_request(Size::Large));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
