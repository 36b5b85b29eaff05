// Helpers of the references' unit tests (test/host/test_reference*.cpp): typed buffers from
// values, and f32 words back as floats.
#pragma once

#include "models/host/reference.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace vgpu::host::test {

/// A buffer of type t holding these words.
inline typed_buffer words(elem_type t, std::vector<std::uint32_t> w)
{
    return {t, std::move(w)};
}

/// A u32 buffer.
inline typed_buffer u32s(std::vector<std::uint32_t> w)
{
    return words(elem_type::u32, std::move(w));
}

/// An i32 buffer.
inline typed_buffer i32s(const std::vector<std::int32_t>& v)
{
    typed_buffer b{elem_type::i32, {}};
    for (auto x : v)
        b.words.push_back(static_cast<std::uint32_t>(x));
    return b;
}

/// An f32 buffer.
inline typed_buffer f32s(const std::vector<float>& v)
{
    typed_buffer b{elem_type::f32, {}};
    for (float f : v)
        b.words.push_back(f32_bits(f));
    return b;
}

/// f32 words as floats.
inline std::vector<float> floats(const std::vector<std::uint32_t>& w)
{
    std::vector<float> f;
    for (auto x : w)
        f.push_back(bits_f32(x));
    return f;
}

} // namespace vgpu::host::test
