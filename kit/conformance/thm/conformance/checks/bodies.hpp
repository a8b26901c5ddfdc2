#pragma once
/// \file
/// The bodies of the checks of queue-conformance.md §6, one per EQ id, each in the file of
/// its section (checks/*.cpp). Internal to the suite: `run_check` is the public way in.

#include "thm/conformance/checks/run.hpp"

namespace thm::conformance::checking {

// A. exactly-once and the meaning of each answer (EQ-01…EQ-07): checks/exactly_once.cpp
void eq01_race_on_one_key(Run& run);
void eq02_pause_first_caller_before_commit(Run& run);
void eq03_first_caller_rolls_back(Run& run);
void eq04_unique_constraint(Run& run);
void eq05_answer_on_replay(Run& run);
void eq06_indeterminate_then_retry(Run& run);
void eq07_accounting(Run& run);

// B. atomicity and rollback (EQ-08…EQ-10, EQ-33): checks/atomicity.cpp
void eq08_forced_rollback_leaves_nothing(Run& run);
void eq09_refused_leaves_nothing(Run& run);
void eq10_session_survives_every_answer(Run& run);
void eq33_error_kinds_match_the_store(Run& run);

// C. revalidating the stored trigger and the policy (EQ-11…EQ-13): checks/revalidation.cpp
void eq11_mismatch_matrix(Run& run);
void eq12_policy_inside_the_transaction(Run& run);
void eq13_stored_reply_edited_concurrently(Run& run);

// D. leases, the store clock and attempts (EQ-14…EQ-19, EQ-26, EQ-27, EQ-31, EQ-32):
// checks/leases.cpp
void eq14_expiry_computed_by_the_store(Run& run);
void eq15_no_stolen_lease_no_starvation(Run& run);
void eq16_lease_api_takes_durations(Run& run);
void eq17_statement_time(Run& run);
void eq18_attempts_visible(Run& run);
void eq19_concurrent_claimers(Run& run);
void eq26_stale_tokens_refused(Run& run);
void eq27_claims_respect_a_held_row(Run& run);
void eq31_replay_while_leased(Run& run);
void eq32_lease_operations_on_the_store_clock(Run& run);

// E. keys, inputs and lifetime (EQ-20…EQ-22, EQ-34): checks/keys_and_lifetime.cpp
void eq20_canonical_keys(Run& run);
void eq21_large_and_adversarial_inputs(Run& run);
void eq22_record_outlives_child(Run& run);
void eq34_input_domain(Run& run);

// F. durability, capabilities and the model (EQ-23…EQ-25): checks/durability_and_capabilities.cpp
void eq23_crash_and_restart(Run& run);
void eq24_capabilities_match_behaviour(Run& run);
void eq25_model_based(Run& run);
// and EQ-35: checks/concurrent_history.cpp
void eq35_concurrent_calls_linearizable(Run& run);

// G. node loss (EQ-28…EQ-30): checks/node_loss.cpp
void eq28_leader_killed(Run& run);
void eq29_follower_killed(Run& run);
void eq30_leader_paused(Run& run);

}  // namespace thm::conformance::checking
