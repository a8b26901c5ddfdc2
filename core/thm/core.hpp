#pragma once
/// \file
/// The public surface of `thm::core`, the decision core: include this one header. Every
/// call is a pure fold over its arguments (no I/O, no clocks, no exceptions, SPEC §0),
/// except `dispatch_mention`, whose one side effect is the call of the host's own port.

#include "thm/briefing/briefing.hpp"    // SPEC §7 team briefing
#include "thm/chat/chat.hpp"            // SPEC §1.3 General desk, conversations, dispatch scope
#include "thm/desks/desks.hpp"          // SPEC §1.2 desk rules
#include "thm/desks/types.hpp"          // SPEC §1.2 desk rows
#include "thm/dispatch/dispatch.hpp"    // SPEC §3 mention_dispatch
#include "thm/dispatch/types.hpp"       // SPEC §3.1, §5 dispatch types and wording
#include "thm/explain/explain.hpp"      // SPEC §8.3, §8.4 how a trace reads
#include "thm/mentions/types.hpp"       // SPEC §1.4 mentions
#include "thm/overloaded.hpp"           // visiting decision variants
#include "thm/queue/queue.hpp"          // SPEC §4 MentionTurnQueue, dispatch_mention
#include "thm/queue/turn_key.hpp"       // SPEC §3.3 TurnKey, the idempotency scope
#include "thm/resolution/resolve.hpp"   // SPEC §1.5 mention resolution
#include "thm/responder/responder.hpp"  // SPEC §2.2, §2.3 responder_plan
#include "thm/responder/types.hpp"      // SPEC §2.1, §2.4 responder types and wording
#include "thm/result.hpp"               // thm::Result, thm::unexpected
#include "thm/roster/roster.hpp"        // SPEC §1.1 roster
#include "thm/selection/selection.hpp"  // SPEC §2.5, §2.6 accepting and settling selections
#include "thm/team/team.hpp"            // adr/0016 a prepared team: snapshots validated once
#include "thm/trace/trace.hpp"          // SPEC §8 decision traces
