// The workload reader's shared parts: the located-YAML reader and the reader of one workload
// document, whose sections are read in workload_*.cpp. Internal to models/host (the interface
// is workload.h). See docs/workloads.md.
#pragma once

#include "models/host/workload.h"

#include "models/common/units.h"
#include "models/common/yaml_input.h"
#include "models/sm/ptx/compile.h"
#include "models/sm/ptx/entry.h"
#include "models/sm/ptx/translate.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

/// Internal to the workload reader (workload*.cpp).
namespace vgpu::host::detail {

using config::field;
using config::fields;
using config::join;

/// v with up to 10 significant digits.
std::string number_text(double v);

/// The shared located-YAML reader plus what only workloads need: names, element values.
class reader : public config::yaml_input {
public:
    reader(const config::yaml_document& doc, config::errors& errs) : yaml_input(doc, errs) {}

    const std::string& name() const { return doc().name(); }

    bool is_map(const field& f, const char* expected = "a mapping of keys")
    {
        if (f.value.IsMap())
            return true;
        wrong_type(f, expected);
        return false;
    }

    std::optional<std::string> string(const field& f)
    {
        if (!f.value.IsScalar() || f.value.Scalar().empty()) {
            wrong_type(f, "a string");
            return std::nullopt;
        }
        return f.value.Scalar();
    }

    /// A name: letters, digits and '_', not starting with a digit.
    std::optional<std::string> identifier(const field& f)
    {
        auto s = string(f);
        if (!s)
            return s;
        const bool ok = !std::isdigit(static_cast<unsigned char>((*s)[0])) &&
                        std::all_of(s->begin(), s->end(), [](char c) {
                            return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                        });
        if (!ok) {
            error(where(f), f.path,
                  "invalid name '" + *s +
                      "' (expected letters, digits and '_', not starting "
                      "with a digit)");
            return std::nullopt;
        }
        return s;
    }

    /// A number that must be representable in an element of type t (as a double: a u64 or
    /// i64 value beyond 2^53 is rounded; element_bits() is exact).
    std::optional<double> element(const YAML::Node& v, const std::string& path, elem_type t,
                                  const YAML::Node& at)
    {
        auto x = number(v, path, at);
        if (!x)
            return x;
        if (is_float(t)) {
            const double big = t == elem_type::f32 ? std::numeric_limits<float>::max()
                                                   : std::numeric_limits<double>::max();
            if (std::fabs(*x) > big) {
                error(at, path,
                      std::string("value out of range (expected an ") + host::name(t) +
                          " value, got " + v.Scalar() + ")");
                return std::nullopt;
            }
            return x;
        }
        if (*x != std::floor(*x)) {
            error(at, path,
                  std::string("wrong type (expected an integer for a ") + host::name(t) +
                      " buffer, got " + v.Scalar() + ")");
            return std::nullopt;
        }
        const unsigned w = elem_bytes(t) * 8;
        const bool sgn = is_signed(t);
        // The exact text when it is an integer literal (u64, i64 beyond 2^53), else the number.
        const std::optional<std::int64_t> si = vgpu::parse_int(v.Scalar());
        const std::optional<std::uint64_t> ui = vgpu::parse_uint(v.Scalar());
        bool in = false;
        if (sgn) {
            const std::int64_t hi = static_cast<std::int64_t>((std::uint64_t{1} << (w - 1)) - 1);
            const std::int64_t lo = -hi - 1;
            if (si)
                in = *si >= lo && *si <= hi;
            else if (!ui)
                in = *x >= static_cast<double>(lo) && *x < -static_cast<double>(lo);
            if (!in)
                return range_error(v, path, t, at, std::to_string(lo), std::to_string(hi));
        } else {
            const std::uint64_t hi = w == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << w) - 1;
            if (ui)
                in = *ui <= hi;
            else if (!si)
                in = *x >= 0 && *x < static_cast<double>(hi) + 1.0;
            if (!in)
                return range_error(v, path, t, at, "0", std::to_string(hi));
        }
        return x;
    }

    /// The bits of an element of type t written at v (to_bits, exact for every integer).
    std::optional<std::uint64_t> element_bits(const YAML::Node& v, const std::string& path,
                                              elem_type t, const YAML::Node& at)
    {
        const auto x = element(v, path, t, at);
        if (!x)
            return std::nullopt;
        if (!is_float(t)) {
            if (auto si = vgpu::parse_int(v.Scalar()))
                return static_cast<std::uint64_t>(*si);
            if (auto ui = vgpu::parse_uint(v.Scalar()))
                return *ui;
        }
        return to_bits(*x, t);
    }

    std::nullopt_t range_error(const YAML::Node& v, const std::string& path, elem_type t,
                               const YAML::Node& at, const std::string& lo, const std::string& hi)
    {
        error(at, path,
              "value out of range (expected " + lo + ".." + hi + " for a " + host::name(t) +
                  " buffer, got " + v.Scalar() + ")");
        return std::nullopt;
    }

    template <class E>
    std::optional<E> choice(const field& f, const std::vector<std::pair<std::string, E>>& names)
    {
        std::vector<std::string> keys;
        for (const auto& n : names)
            keys.push_back(n.first);
        const auto chosen = yaml_input::choice(f, keys);
        for (const auto& n : names)
            if (chosen && n.first == *chosen)
                return n.second;
        return std::nullopt;
    }
};

/// path[i].
std::string at(const std::string& path, std::size_t i);

/// "; did you mean ..." for word among names, or empty.
std::string hint_of(const std::string& word, const std::vector<std::string>& names);

/// One replacement of "${...}" in a scalar: its offset in the result and both lengths.
struct edit {
    std::size_t pos;
    std::size_t old_len;
    std::size_t new_len;
};

/// Where each character of a scalar's text sits in the file, after the replacements `edits`
/// (in order) of the text traced by `runs` (value_size characters): unchanged characters keep
/// their place; a value that replaced "${...}" sits where the reference starts.
std::vector<sm::source_span> expanded_spans(const std::vector<config::text_run>& runs,
                                            std::size_t value_size, const std::vector<edit>& edits);

/// A declared workload variable.
struct variable {
    std::string text;                    ///< the number as written (or computed)
    std::optional<std::int64_t> integer; ///< its value when it is an integer
    bool ok = true;                      ///< false after an error (uses are then silent)
};

/// A variable name: letters, digits and '_', not starting with a digit.
bool is_name(const std::string& s);

/// An integer or a floating-point number.
bool is_number(const std::string& s);

/// Reports check d (the item `check`, its `args` field) when its reference would do more
/// element operations than work_limit() allows; silent when the arguments are invalid (the
/// reference reports those itself, without looping).
void check_reference_work(reader& r, const workload& wl, const field& check, const field* args,
                          const buffer_decl* out, const check_decl& d);

/// Reads a workload document into `wl`: one reader per document; its sections are read by
/// the files named after them (workload_buffers.cpp, workload_kernels.cpp, ...).
class workload_reader {
public:
    workload_reader(reader& r, workload& wl, const workload_options& opts)
        : m_r(r), m_wl(wl), m_opts(opts)
    {
    }

    /// Reads the document's root: variables first, then the sections in order.
    void read(const YAML::Node& root);

    /// The text as used: the values of the variables that the options replaced rewritten in
    /// place, and a `name:` line when the file has none (so that its default name survives).
    std::string record_text(const YAML::Node& root);

    /// "SMs f..l" (or "all SMs from f") for messages.
    static std::string describe(const sm_range& r);

private:
    /// `instrument: [control, memory]`: the record types of seed 002's trace buffers.
    void read_instrument(const field& f, kernel_decl& d);

    /// `cbvs: [{slot: 0, buffer: m}]`: the CBV slots the kernel's CDLs read.
    void read_cbvs(const field& f, kernel_decl& d);

    /// `evict: [{buffer, phase, after_ns}]`: the driver's evictions (seed 003).
    void read_evictions(const field& f);

    // ---- variables: `vars:`, "${...}" and the run's values ----
    /// Reads `vars:` in order (each may use earlier ones) and applies the options' values.
    void read_vars(const field* f);

    /// " (did you mean 'x'?)", or the declared names, for an unknown variable.
    std::string var_hint(const std::string& name) const;

    /// Replaces "${...}" in every scalar value below n (keys are left alone). The node keeps
    /// its position, so later messages still point into the file.
    void expand_tree(YAML::Node n, const std::string& path);

    /// in with each "${...}" replaced by its value; nullopt after an error.
    std::optional<std::string> expand(const std::string& in, const YAML::Node& n,
                                      const std::string& path, std::vector<edit>* edits);

    /// The value of "${expr}": a variable, or integers and variables joined by +, - and *
    /// (64-bit integer arithmetic, * before + and -).
    std::optional<std::string> evaluate(const std::string& expr, const config::location& where,
                                        const std::string& path);

    /// The variable called name; reports unknown ones and ones used before their declaration.
    const variable* lookup(const std::string& name, const config::location& where,
                           const std::string& path);

    /// True if f is a non-empty sequence; reports it otherwise.
    bool list(const field& f);

    /// Item i of the sequence f, with its path.
    field item(const field& f, std::size_t i);

    /// `buffers:`: each buffer's name, type, size, allocation and initialiser.
    void read_buffers(const field& f);

    /// A buffer's `init:`; false after an error.
    bool read_init(const field& f, buffer_decl& d);

    /// Reports the first element of an f32 or f64 iota that overflows to infinity, at `at`.
    bool check_f32_iota(const buffer_decl& d, const field& at);

    /// [x, y, z], [x, y] or x (missing dimensions 1); dimension i in 1..hi[i].
    bool dims(const field& f, const unsigned (&hi)[3], unsigned (&out)[3]);

    /// `kernels:`: each kernel's grid, block, SM set, parameters and program.
    void read_kernels(const field& f);

    /// A kernel's `params:`: numbers and buffer names, in order.
    /// (translated: values are kept as text, converted by check_params).
    void read_params(const field& f, kernel_decl& d, bool translated);

    /// Assembles the kernel's `program:` text, errors located in the file.
    void assemble(const field& f, kernel_decl& d);

    // ---- kernels from CUDA or PTX (workload_cuda.cpp) ----
    /// rel resolved against the workload file's folder (absolute paths as they are).
    std::string resolve(const std::string& rel) const;
    /// `defines: {NAME: value}`: the compiler's -D.
    void read_defines(const field& f, ptx::compile_request& req);
    /// `includes: [DIR]`: the compiler's -I, each an existing folder.
    void read_includes(const field& f, ptx::compile_request& req);
    /// The kernel `it` with `cuda:` or `ptx:` and `entry:`: compile (cuda: without ptx:),
    /// parse, find and check the entry, check `params:`, translate and assemble; the PTX and
    /// the translated program go to m_wl.files (kernels/<name>.ptx, .vasm).
    void translate_kernel(const fields& k, const field& it, kernel_decl& d);
    /// Adds the local area of a translated kernel (a buffer and a last parameter).
    bool add_local_area(kernel_decl& d, std::uint64_t bytes, const field& src);
    /// Kernel printf: declares the kernel's FIFO buffer and its hidden parameter.
    bool add_printf_buffer(kernel_decl& d, const ptx::translation& t, const field& src);
    /// The kernel's constant bank (initialisers, then `constants:` f) as a read-only buffer
    /// `<kernel>.const` bound to CBV slot const_slot() (workload_cuda.cpp).
    void read_constants(const field* f, const ptx::translation& t, kernel_decl& d);
    /// The CBV slot of the next constant bank: the banks made so far.
    unsigned const_slot() const;
    /// d.params against the entry's parameters: count, and each a buffer for a pointer or a
    /// value converted to the parameter's PTX type.
    void check_params(const fields& k, const field& it, const std::vector<ptx::param_info>& want,
                      kernel_decl& d);
    /// A translated kernel, for the record: its mapping, its `cuda:`/`ptx:` values and the
    /// path of its PTX in the run's output folder.
    struct translated_record {
        YAML::Node kernel;   ///< the kernel's mapping
        YAML::Node cuda;     ///< `cuda:` value (when has_ptx is false)
        YAML::Node ptx;      ///< `ptx:` value (when has_ptx)
        bool has_ptx;        ///< the kernel has `ptx:`
        YAML::Node cuda_key; ///< `cuda:` key
        std::string saved;   ///< "kernels/<name>.ptx"
    };
    std::vector<translated_record> m_records;
    /// `init: {file: PATH}` (f is the `file` entry, map the init mapping): the buffer's
    /// elements as raw little-endian bytes, copied into the record (inputs/<buffer>.bin).
    bool read_init_file(const field& f, const YAML::Node& map, buffer_decl& d);
    /// A check's `expect_file: PATH` (raw little-endian elements, one per element of buf),
    /// copied into the record (expected/<check index>.bin).
    void read_expect_file(const field& f, const YAML::Node& map, const buffer_decl* buf,
                          check_decl& d);
    /// The raw contents of the file a path key names (relative to the workload file), which
    /// must hold exactly `elements` elements of type t; saved as `saved` in the record.
    std::optional<std::string> read_data_file(const field& f, const YAML::Node& map,
                                              std::uint64_t elements, elem_type t,
                                              const std::string& saved);
    /// A path the record rewrites: its value node, the style of its mapping, the new path.
    struct path_record {
        YAML::Node value;
        bool flow;
        std::string saved;
    };
    std::vector<path_record> m_path_records;
    /// The end offset of the scalar n that starts at off in the text (quoted or plain).
    std::size_t scalar_end(std::size_t off, bool flow) const;

    /// The declared buffer names (for "did you mean").
    std::vector<std::string> buffer_names() const;

    /// The declared kernel names (for "did you mean").
    std::vector<std::string> kernel_names() const;

    /// `schedule:`: phases of kernels that run side by side on disjoint SM sets, and loops.
    void read_schedule(const field& f);

    /// One phase: a kernel name or a list of them, appended to the schedule.
    void read_phase(const field& ph);

    /// A loop `{repeat: [phases], times: N}` or `{repeat, until, max}`, the `entry`th item of
    /// the schedule: its body's phases are appended to the schedule, the loop to wl.loops.
    void read_loop(const field& ph, std::size_t entry);

    /// A loop's `until: {buffer, index, equals}`.
    void read_until(const field& f, loop_decl& d);

    /// Reports declared kernels that no phase of the schedule runs.
    void check_all_scheduled();

    /// Reports kernels a and b of one phase whose SM sets overlap, at e.
    void overlap(const field& e, const kernel_decl& a, const kernel_decl& b);

    /// `checks:`: each check's buffer and its expected values or reference.
    void read_checks(const field& f);

    /// A check's `tol:` (absolute and relative, for f32 buffers).
    void read_tolerance(const field& t, tolerance& tol);

    /// A check's `expect:` values, one per element of buf.
    void read_expect(const field& e, const buffer_decl* buf, check_decl& d);

    /// A check's `reference:` and its `args:`, checked against the reference's signature.
    void read_reference(const field& ref, const field* args, const field& it,
                        const buffer_decl* buf, check_decl& d);

    /// A reference argument that names a buffer of one of the types a allows.
    void buffer_arg(const field& x, const arg_spec& a, check_decl& d);

    /// A number, or "kernel.param" naming a kernel's number parameter.
    void scalar_arg(const field& x, const arg_spec& a, check_decl& d);

    reader& m_r;
    workload& m_wl;
    const workload_options& m_opts;
    bool m_kernels_ok = true;
    bool m_has_name = false;
    std::vector<std::string> m_var_order;            ///< declared names, in order
    std::map<std::string, YAML::Node> m_var_nodes;   ///< declared value of each
    std::map<std::string, variable> m_vars;          ///< values, as far as read
    std::map<std::string, std::string> m_overridden; ///< names the options gave a value
    /// Where the text of each scalar that "${...}" changed sits in the file, by its position.
    std::map<std::pair<int, int>, std::vector<sm::source_span>> m_spans;
};

} // namespace vgpu::host::detail
