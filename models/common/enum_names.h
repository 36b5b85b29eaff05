// The spelling of every configurable enum, written once next to the enum and used by the
// configuration reader, --list-params, the effective config.yaml and any text output.
// No SystemC. See docs/configuration.md.
#pragma once

#include <optional>
#include <string_view>
#include <utility>

namespace vgpu {

/// Specialise next to the enum:
/// `template <> struct enum_names<ns::kind> { static constexpr std::pair<std::string_view,
/// ns::kind> table[] = {{"a", ns::kind::a}, ...}; };`
template <class E> struct enum_names;

/// The spelling of `v` ("?" for a value missing from the table, which a test should catch).
template <class E> constexpr std::string_view name_of(E v)
{
    for (const auto& [name, value] : enum_names<E>::table)
        if (value == v)
            return name;
    return "?";
}

/// The value spelled `text`, or nothing.
template <class E> constexpr std::optional<E> enum_from_name(std::string_view text)
{
    for (const auto& [name, value] : enum_names<E>::table)
        if (name == text)
            return value;
    return std::nullopt;
}

} // namespace vgpu
