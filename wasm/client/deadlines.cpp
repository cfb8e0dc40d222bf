// Deadlines, decided here and timed by the host: an approval nobody decides
// within approvalTimeoutMs is rejected, an interrupt past its expiresAt is
// cancelled, each with the reason. The core reads no clock: the host passes its
// time to the calls that judge a deadline, each step names the next one due
// ("deadline"), and the host calls expire() then (quinn-proto's timers, as
// requests from the state machine to its host).
#include <cmath>

#include "client/round_driver.hpp"
#include "common/json_text.hpp"
#include "protocol/fields.hpp"

namespace agui {

namespace {

// 50 as "50", 2.5 as "2.5": the option as the page wrote it.
std::string ms_text(double ms) {
  return std::floor(ms) == ms && ms < 1e15 ? std::to_string(static_cast<long long>(ms))
                                           : dump_json(json(ms));
}

}  // namespace

std::optional<double> RoundDriver::next_deadline() const {
  std::optional<double> next;
  auto consider = [&](double at) { next = next ? std::min(*next, at) : at; };
  for (const auto& c : round_) {
    if (c.status != CallStatus::kPendingApproval) continue;
    if (auto due = approval_due_.find(c.id); due != approval_due_.end()) consider(due->second);
  }
  for (const auto& i : interrupts_) {
    if (i.expires_at) consider(*i.expires_at);
  }
  return next;
}

std::string RoundDriver::expiry_reason(const Interrupt& i) const {
  if (!expired(i)) return {};
  const auto* at = detail::opt_string(i.interrupt, "expiresAt");
  return "expired at " + (at ? *at : std::string());
}

bool RoundDriver::cancel_expired_interrupts() {
  const bool any = !interrupts_.empty();
  for (auto it = interrupts_.begin(); it != interrupts_.end();) {
    if (!expired(*it)) {
      ++it;
      continue;
    }
    answer_interrupt(it->interrupt, "cancelled", json{{"reason", expiry_reason(*it)}});
    it = interrupts_.erase(it);
  }
  return any && interrupts_.empty();
}

// What an import brought back pending, told as when it first arrived; the
// approvals' deadlines start again from now.
void RoundDriver::announce_imported() {
  for (const auto& c : round_) {
    if (c.status != CallStatus::kPendingApproval) continue;
    if (options_.approval_timeout_ms > 0) approval_due_[c.id] = now_ + options_.approval_timeout_ms;
    changes_.push(ChangeKind::kApprovalRequested, "approval", approval_json(c));
  }
  if (interrupts_.empty()) return;
  json pending = json::array();
  for (const auto& i : interrupts_) pending.push_back(i.interrupt);
  changes_.push(ChangeKind::kInterrupts, "interrupts", pending);
}

Step RoundDriver::expire_step(double now) {
  now_ = now;
  Step told;
  told.deadline_changed = true;
  std::vector<std::string> due;
  for (const auto& c : round_) {
    auto at = approval_due_.find(c.id);
    if (c.status == CallStatus::kPendingApproval && at != approval_due_.end() && at->second <= now)
      due.push_back(c.id);
  }
  for (const auto& id : due) {
    approval_due_.erase(id);
    reject_call(*find_call(id),
                "approval timed out after " + ms_text(options_.approval_timeout_ms) + " ms",
                CallState::kCancelled);
  }
  if (!due.empty()) return maybe_complete_round(std::move(told));
  if (cancel_expired_interrupts()) return start_run(std::move(told));  // the resume
  return told;
}

// Every public call answers through here: the step, and the next deadline when
// it is not what the host was last told (expire() always tells it, so a timer
// that fired a little early is armed again).
json RoundDriver::as_json(Step step) {
  const std::optional<double> next = next_deadline();
  if (next != reported_deadline_ || step.deadline_changed) {
    step.deadline_changed = true;
    step.deadline = next;
    reported_deadline_ = next;
  }
  return std::move(step).to_json();
}

}  // namespace agui
