#include "thm/memory/harness.hpp"

namespace thm::memory {

MemorySetup::MemorySetup(Limits limits)
    : limits_(limits),
      store_millis_(std::make_shared<std::atomic<std::int64_t>>(1'893'456'000'000)),
      queue_(std::make_shared<MemoryQueue>(limits_, [millis = store_millis_] {
        return StoreTime(std::chrono::milliseconds(millis->load()));
      })) {}

conformance::Capabilities MemorySetup::capabilities() const {
  return {.hooks = true,
          .row_locking = true,  // not persistent, no SQL schema
          .max_content_bytes = limits_.max_content_bytes,
          .max_id_bytes = limits_.max_id_bytes,
          .leases = true,
          .injected_store_clock = true,
          .skewable_client_clock = true,  // its only clock is the store's, which the suite owns
          .max_attempts = limits_.max_attempts};
}

Result<std::shared_ptr<MemoryQueue>, QueueError> MemorySetup::open(
    const TransactionHook& hook) const {
  (void)hook;  // empty: StoreHarness hooks this store through set_hook
  return queue_;
}

}  // namespace thm::memory
