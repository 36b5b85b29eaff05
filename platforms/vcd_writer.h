// The VCD waveform writer of `--vcd` (trace.vcd): an sc_trace_file that samples the traced
// variables after every delta cycle and shows booked levels at their own times, without
// adding any process or event to the simulation. See docs/outputs.md ("trace.vcd").
#pragma once

#include "models/common/trace_events.h"

#include <cstdint>
#include <fstream>
#include <queue>
#include <string>
#include <systemc>
#include <tuple>
#include <vector>

namespace vgpu::platforms {

/// Writes a value-change dump with a time scale of 1 fs: a change at simulated picosecond t in
/// the d-th delta cycle of that instant is dumped at t * 1000 + d fs (d at most 999), so that
/// a pulse that rises and falls within one instant stays visible. Levels booked through
/// trace::level_sink change at t * 1000. Supports bool and integer variables (sc_trace of
/// sc_signal<bool> included); other types are refused with an error.
class vcd_writer : public sc_core::sc_trace_file, public trace::level_sink {
public:
    /// Creates `file` and hooks into the kernel's trace cycle; ok() says whether it was created.
    explicit vcd_writer(const std::string& file);
    ~vcd_writer() override;
    vcd_writer(const vcd_writer&) = delete;
    vcd_writer& operator=(const vcd_writer&) = delete;

    bool ok() const { return m_ok; }                   ///< the file was created
    const std::string& file() const { return m_file; } ///< its path
    /// Writes what is due up to the current simulated time and closes the file; false when any
    /// write failed.
    bool close();

    unsigned add_level(const std::string& name, bool bit) override;
    void step_level(unsigned id, std::uint64_t at_ps, int delta) override;

    void trace(const bool& object, const std::string& name) override;
    void trace(const unsigned char& object, const std::string& name, int width) override;
    void trace(const unsigned short& object, const std::string& name, int width) override;
    void trace(const unsigned int& object, const std::string& name, int width) override;
    void trace(const unsigned long& object, const std::string& name, int width) override;
    void trace(const char& object, const std::string& name, int width) override;
    void trace(const short& object, const std::string& name, int width) override;
    void trace(const int& object, const std::string& name, int width) override;
    void trace(const long& object, const std::string& name, int width) override;
    void trace(const sc_dt::int64& object, const std::string& name, int width) override;
    void trace(const sc_dt::uint64& object, const std::string& name, int width) override;
    void trace(const unsigned int& object, const std::string& name,
               const char** enum_literals) override;
    void trace(const sc_core::sc_event& object, const std::string& name) override;
    void trace(const sc_core::sc_time& object, const std::string& name) override;
    void trace(const sc_dt::sc_bit& object, const std::string& name) override;
    void trace(const sc_dt::sc_logic& object, const std::string& name) override;
    void trace(const float& object, const std::string& name) override;
    void trace(const double& object, const std::string& name) override;
    void trace(const sc_dt::sc_int_base& object, const std::string& name) override;
    void trace(const sc_dt::sc_uint_base& object, const std::string& name) override;
    void trace(const sc_dt::sc_signed& object, const std::string& name) override;
    void trace(const sc_dt::sc_unsigned& object, const std::string& name) override;
    void trace(const sc_dt::sc_fxval& object, const std::string& name) override;
    void trace(const sc_dt::sc_fxval_fast& object, const std::string& name) override;
    void trace(const sc_dt::sc_fxnum& object, const std::string& name) override;
    void trace(const sc_dt::sc_fxnum_fast& object, const std::string& name) override;
    void trace(const sc_dt::sc_bv_base& object, const std::string& name) override;
    void trace(const sc_dt::sc_lv_base& object, const std::string& name) override;
    /// A comment before the definitions (ignored once the header is written).
    void write_comment(const std::string& comment) override;
    /// The time scale is fixed (1 fs, see the class comment): ignored.
    void set_time_unit(double v, sc_core::sc_time_unit tu) override;

protected:
    void cycle(bool delta_cycle) override;

private:
    using reader = std::uint64_t (*)(const void*);
    struct signal {
        std::string name;
        std::string code;       ///< VCD identifier
        unsigned width;         ///< bits
        const void* object;     ///< traced variable (nullptr for a level)
        reader read;            ///< its value, masked to width
        std::uint64_t value;    ///< last value written
        bool bit_level = false; ///< level shown as level > 0
        std::int64_t sum = 0;   ///< level: sum of the steps applied
    };
    /// (time in ps, signal, delta), earliest first.
    using step = std::tuple<std::uint64_t, unsigned, int>;

    template <class T> void add(const T& object, const std::string& name, int width);
    unsigned declare(const std::string& name, unsigned width, const void* object, reader read);
    void refuse(const std::string& name, const char* type);
    void write_header();
    void write_time(std::uint64_t fs);
    void write_value(const signal& s);
    /// Applies the booked steps up to `now_ps`, each at its own time.
    void apply_levels(std::uint64_t now_ps);

    std::string m_file;
    std::ofstream m_out;
    bool m_ok = false, m_header = false, m_closed = false;
    std::vector<signal> m_signals;
    std::vector<unsigned> m_sampled; ///< signals read after every delta cycle
    std::priority_queue<step, std::vector<step>, std::greater<step>> m_steps;
    std::vector<std::string> m_comments;
    std::uint64_t m_last_fs = 0; ///< time of the latest "#" written
    bool m_time_written = false;
    std::uint64_t m_cur_ps = 0; ///< instant of the delta count
    unsigned m_delta = 0;       ///< delta cycles seen in that instant
};

} // namespace vgpu::platforms
