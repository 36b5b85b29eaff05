// Host-side reference computations of the shipped workloads, over the initial buffer contents,
// and the comparison of GPU results with them. See docs/workloads.md ("References").
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vgpu::host {

/// Element type of a workload buffer (1, 2, 4 or 8 bytes; the 32-bit ones first, as they were
/// the only ones before).
enum class elem_type : std::uint8_t { u32, i32, f32, u8, i8, u16, i16, u64, i64, f64 };

/// Name of an element type ("f32").
const char* name(elem_type t);
/// Every element type with its name, in documentation order (u8 i8 u16 ... f64).
const std::vector<std::pair<std::string, elem_type>>& elem_type_names();
/// Bytes of one element of type t.
unsigned elem_bytes(elem_type t);
/// True for f32 and f64.
bool is_float(elem_type t);
/// True for the signed integer types (i8, i16, i32, i64).
bool is_signed(elem_type t);

/// Words of the packed image of n elements of type t (ceil(n x bytes / 4)).
std::uint64_t image_words(std::uint64_t n, elem_type t);
/// The bits of element i of a packed little-endian image (zero-extended to 64 bits).
std::uint64_t get_element(const std::vector<std::uint32_t>& image, std::uint64_t i, elem_type t);
/// Stores the low elem_bytes(t) bytes of bits as element i of a packed image.
void put_element(std::vector<std::uint32_t>& image, std::uint64_t i, elem_type t,
                 std::uint64_t bits);
/// The packed image of raw little-endian bytes (the last word zero-padded).
std::vector<std::uint32_t> image_of_bytes(const std::string& bytes);
/// The bits of element type t that hold v (the float, or the integer modulo 2^width).
std::uint64_t to_bits(double v, elem_type t);

/// A buffer's contents as a packed little-endian image in 32-bit words (element i of a b-byte
/// type at bytes i*b .. i*b+b-1; the bytes past the last element are zero), with its type.
struct typed_buffer {
    elem_type type = elem_type::u32;  ///< how the words are read
    std::vector<std::uint32_t> words; ///< the packed image (one word per 32-bit element)
};

/// Kind of a reference argument.
enum class arg_kind : std::uint8_t { buffer, scalar };

/// One argument a reference takes.
struct arg_spec {
    const char* name;             ///< argument name in `args`
    arg_kind kind;                ///< buffer or number
    bool required;                ///< false: the reference has a documented default
    std::vector<elem_type> types; ///< buffer: accepted element types
};

/// A reference computation: its name, arguments and the element types its output may have.
struct reference_spec {
    const char* name;                 ///< name used in a check's `reference`
    std::vector<arg_spec> args;       ///< arguments, in documentation order
    std::vector<elem_type> out_types; ///< accepted types of the checked buffer
    const char* math;                 ///< one-line statement of what it computes
};

/// Every reference, in documentation order.
const std::vector<reference_spec>& references();
/// The reference called name, or nullptr.
const reference_spec* find_reference(std::string_view name);

/// Arguments of one reference call: buffers by argument name, numbers by argument name.
struct reference_args {
    std::map<std::string, typed_buffer, std::less<>> buffers; ///< buffer arguments
    std::map<std::string, double, std::less<>> scalars;       ///< scalar arguments
};

/// Output of compute_reference().
struct reference_result {
    std::vector<std::uint32_t> words;         ///< expected contents of the checked buffer
    std::string error;                        ///< non-empty when the arguments do not fit
    bool ok() const { return error.empty(); } ///< true if words is valid
};

/// Computes the expected contents of the checked buffer, starting from its initial contents
/// `out` (elements the reference does not compute keep their initial value).
reference_result compute_reference(std::string_view name, const reference_args& args,
                                   const typed_buffer& out);

/// Sizes and numbers of one reference call: what its work depends on (no buffer contents).
struct reference_shape {
    std::map<std::string, std::uint64_t, std::less<>> buffers; ///< elements of each buffer argument
    std::map<std::string, double, std::less<>> scalars;        ///< scalar arguments
    std::uint64_t out = 0;                                     ///< elements of the checked buffer
    /// Elements of every buffer the call reads and writes (the checked one included).
    std::uint64_t elements() const;
};

/// Output of estimate_work().
struct reference_work {
    std::uint64_t ops = 0;   ///< element operations (inner-loop steps), saturated at 2^64 - 1
    const char* driver = ""; ///< the argument that scales ops beyond the buffer sizes
    std::string error;       ///< non-empty when the arguments are invalid (no estimate)
    bool ok() const { return error.empty(); } ///< true if ops is valid
};

constexpr std::uint64_t work_base = 1ull << 32; ///< element operations any reference may do
constexpr std::uint64_t work_per_element = 64;  ///< and per element of the buffers of the call

/// Element operations compute_reference(name, ...) does with these sizes and numbers; the
/// arguments are read as compute_reference reads them (defaults included).
reference_work estimate_work(std::string_view name, const reference_shape& shape);

/// Largest work a reference call may do: work_base + work_per_element x shape.elements()
/// (docs/workloads.md, "References"); a check beyond it is refused when the workload is read.
std::uint64_t work_limit(const reference_shape& shape);

/// Allowed difference between an expected and an observed f32 or f64 element.
struct tolerance {
    double relative = 0; ///< |got - expected| <= relative * |expected| passes
    double absolute = 0; ///< |got - expected| <= absolute passes
};

/// One element that differs.
struct mismatch {
    std::size_t index;    ///< element index
    std::string expected; ///< expected value as text
    std::string got;      ///< observed value as text
};

/// Result of compare().
struct comparison {
    std::size_t mismatches = 0;                 ///< elements that differ
    std::vector<mismatch> first;                ///< the first max_report of them
    bool ok() const { return mismatches == 0; } ///< true if every element matched
};

/// Compares got with expected, two packed images of `type` elements, element by element
/// (integers exactly, f32 and f64 with tol; a size difference counts every missing element as a
/// mismatch; the zero bytes past the last element compare equal).
comparison compare(const std::vector<std::uint32_t>& expected,
                   const std::vector<std::uint32_t>& got, elem_type type, const tolerance& tol,
                   std::size_t max_report = 8);

/// A 32-bit element as text in its type ("3", "-2", "1.5").
std::string format_element(std::uint32_t word, elem_type type);
/// An element of any type, given by its bits (get_element), as text.
std::string format_bits(std::uint64_t bits, elem_type type);

/// Bits of a float.
std::uint32_t f32_bits(float f);
/// Float from its bits.
float bits_f32(std::uint32_t w);
/// Bits of a double.
std::uint64_t f64_bits(double d);
/// Double from its bits.
double bits_f64(std::uint64_t w);

} // namespace vgpu::host
