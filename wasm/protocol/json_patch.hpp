// RFC 6902 JSON Patch, as STATE_DELTA and ACTIVITY_DELTA carry it. The core is
// built without exceptions, so this applier reports a failure as a value where
// nlohmann's patch() would throw.
#pragma once

#include <optional>
#include <string>

#include "common/json.hpp"

namespace agui {

// Applies `patch` (an array of operations) to `target`, all or nothing: on
// failure `target` is left as it was and the text says which operation failed
// and why.
std::optional<std::string> apply_json_patch(json& target, const json& patch);

}  // namespace agui
