// Settings that have no effect in the selected configuration: one rule table, checked after the
// configuration is loaded; each such setting a user made warns once. See docs/configuration.md
// ("Settings without effect").
#pragma once

#include "models/common/config.h"
#include "platforms/vgpu_config.h"

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace vgpu::platforms {

/// Fast mode books NoC ports in arrival order, so noc.arbiter and noc.max_wait_cycles do
/// nothing there (the table's rule and its test follow this). A NoC that approximates the
/// policy in fast mode makes this false.
constexpr bool arbiter_inert_in_fast_mode = true;

/// One line of the table: the keys a condition makes inert, and what would make them count.
struct inert_rule {
    /// Parameter paths, space-separated; a path ending in '.' names every key below it.
    std::string_view keys;
    /// True when the keys have no effect in configuration `cfg`.
    bool (*inert)(const vgpu_config& cfg);
    std::string_view because; ///< "tlb.model is ideal (...)": why they have no effect
    std::string_view counts;  ///< "tlb.model: timed": the setting under which they count
};

/// The table, in the order its rules are tried (a key warns by the first rule that applies).
const std::vector<inert_rule>& inert_rules();

/// The table as the Markdown section "Settings without effect" of the configuration reference.
std::string inert_rules_markdown();

/// Warns once (checker::warn) for every parameter a layer after the defaults set that a rule
/// of the table makes inert in `cfg`: "<key>: has no effect: <because>; it counts with
/// <counts>". The parameters in `not_set` are not the user's settings (a saved effective
/// configuration's keys at their default value, platforms/cli.h) and do not warn.
void warn_inert_settings(const vgpu_config& cfg, config::checker& c,
                         const std::set<std::string>& not_set = {});

} // namespace vgpu::platforms
