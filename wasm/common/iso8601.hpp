// ISO 8601 date-times as AG-UI carries them (an interrupt's expiresAt), read
// into milliseconds since the epoch, as JavaScript's Date.parse reads its
// date-time string format.
#pragma once

#include <optional>
#include <string_view>

namespace agui {

// "2026-12-06T02:11:46.123Z", "...+01:00", "2026-12-06" (midnight UTC),
// "+002026-12-06T..." (extended years); fractions past milliseconds are
// dropped. Nothing else: an unreadable string is nullopt, as Date.parse's NaN.
// One difference: a date-time without an offset is read as UTC, where
// Date.parse reads the host's local time (the core has no time zone).
std::optional<double> parse_iso8601_ms(std::string_view text);

}  // namespace agui
