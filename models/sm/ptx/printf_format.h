// Kernel printf (vprintf) formats: the conversions of a format string, the layout of the
// argument buffer clang and nvcc pass to vprintf, and the host's formatting of one record of
// the printf FIFO. Plain C++, no SystemC. See docs/cuda.md, "Kernel printf".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace vgpu::ptx {

/// One conversion of a format string and its slot in the argument buffer.
struct printf_arg {
    std::string spec{};       ///< the conversion as written, "%-08.3lld" (flags, width, ...)
    char conv = 0;            ///< d i u x X o c f F e E g G a A p
    std::uint32_t offset = 0; ///< byte offset of its slot in the argument buffer
    std::uint32_t bytes = 0;  ///< 4 (int, char, short) or 8 (long, long long, double, pointer)
};

/// A format string of a vprintf call site.
struct printf_format {
    std::string text{};             ///< the format string (without its NUL)
    std::vector<printf_arg> args{}; ///< its conversions, in order
    std::uint32_t arg_bytes = 0;    ///< bytes of the argument buffer (the last slot's end)
    int ptx_line = 0;               ///< the PTX line of the call
    std::string cuda{};             ///< "FILE.cu:LINE" of the call, "" when unknown
    /// Bytes of its record in the FIFO: the format id word, then the arguments, whole words.
    std::uint32_t record_bytes() const { return 4 + (arg_bytes + 3) / 4 * 4; }
};

/// Reads `text`'s conversions (flags `-+ #0`, a width and a precision in digits, lengths hh h l
/// ll z j t, conversions d i u x X o c f F e E g G a A p and %%) and lays their slots out as the
/// CUDA ABI does: each argument promoted (float to double, char and short to int) and aligned
/// to its size. Returns "" or why the format is not supported (%s, %n, `*` widths, an
/// unknown conversion, a string that ends inside a conversion).
std::string parse_printf_format(const std::string& text, printf_format& out);

/// The text of one record: the format with each conversion replaced by its argument from
/// `args` (arg_bytes bytes, little-endian), formatted by the host's snprintf.
std::string format_printf_record(const printf_format& f, const std::uint8_t* args);

/// The FIFO's header (words): the next free byte of the data area (the reservation cursor),
/// the records dropped because the buffer was full, the data area's capacity in bytes.
constexpr std::uint32_t printf_header_bytes = 16;

} // namespace vgpu::ptx
