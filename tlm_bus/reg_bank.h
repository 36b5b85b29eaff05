// Memory-mapped 32-bit registers declared as data (name, offset, kind, reset, mask, callbacks),
// served over TLM b_transport and transport_dbg. See docs/registers.md.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <systemc>
#include <tlm>

namespace vgpu::tlm_bus {

/// How the guest may access a register.
enum class reg_access {
    rw,  ///< read/write (bits outside the write mask keep their value)
    ro,  ///< read-only: a write gets TLM_COMMAND_ERROR_RESPONSE
    w1c, ///< read, write 1 to clear (bits in the write mask)
    wo,  ///< write-only: a read gets TLM_COMMAND_ERROR_RESPONSE; writes are not stored
};

/// What a guest write did, handed to the register's on_write callback.
struct reg_write {
    std::uint32_t old_value; ///< stored value before the write
    std::uint32_t new_value; ///< stored value after it (rw, w1c); masked written data (wo)
    std::uint32_t written;   ///< data as the initiator wrote it
    sc_core::sc_time delay;  ///< LT offset of the write: schedule effects with notify(delay)
};

/// One 32-bit register.
struct reg_def {
    std::string name;                   ///< UPPER_CASE name for messages and documentation
    std::uint64_t offset = 0;           ///< byte offset in the window (4-byte aligned)
    reg_access access = reg_access::rw; ///< guest access kind
    std::uint32_t reset = 0;            ///< value after reset
    std::uint32_t write_mask = ~0u;     ///< bits a write (or w1c) may change
    /// Runs in the caller's process after a guest write was applied: it may only record state
    /// and notify events (at `delay`). Returning false refuses the write: the old value is
    /// restored and the initiator gets TLM_COMMAND_ERROR_RESPONSE.
    std::function<bool(const reg_write&)> on_write;
    /// Runs in the caller's process on a guest read of the stored value; returns what the
    /// initiator sees (read side effects). Debug reads return the stored value without it.
    std::function<std::uint32_t(std::uint32_t stored, const sc_core::sc_time& delay)> on_read;
};

/// A set of registers in one address window. Not a module: the owner's target socket calls
/// transport() and transport_dbg(); the owner changes its status registers with set().
class reg_bank {
public:
    /// `name` (the owner's path) prefixes every warning.
    explicit reg_bank(std::string name) : m_name(std::move(name)) {}

    /// Adds a register; throws std::invalid_argument when misaligned or overlapping another.
    void add(reg_def r)
    {
        if (r.offset % 4 != 0)
            throw std::invalid_argument(m_name + ": register " + r.name + " at " + hex(r.offset) +
                                        " is not 4-byte aligned");
        if (const reg_def* o = find(r.offset))
            throw std::invalid_argument(m_name + ": register " + r.name + " at " + hex(r.offset) +
                                        " overlaps " + o->name);
        m_index.emplace(r.offset, m_regs.size());
        m_values.push_back(r.reset);
        m_regs.push_back(std::move(r));
    }
    /// Where warnings about guest mistakes go, without the name prefix (default:
    /// SC_REPORT_WARNING with "<name>: " in front).
    void set_warning_handler(std::function<void(const std::string&)> warn)
    {
        m_warn = std::move(warn);
    }
    /// add() of a register built from its fields.
    void add(std::string name, std::uint64_t offset, reg_access access, std::uint32_t reset,
             std::uint32_t write_mask, std::function<bool(const reg_write&)> on_write = {})
    {
        reg_def r;
        r.name = std::move(name);
        r.offset = offset;
        r.access = access;
        r.reset = reset;
        r.write_mask = write_mask;
        r.on_write = std::move(on_write);
        add(std::move(r));
    }
    /// Sets every register to its reset value (no callbacks).
    void reset()
    {
        for (std::size_t i = 0; i < m_regs.size(); ++i)
            m_values[i] = m_regs[i].reset;
    }

    /// The register at `offset`, or nullptr for a hole.
    const reg_def* find(std::uint64_t offset) const
    {
        auto it = m_index.find(offset);
        return it == m_index.end() ? nullptr : &m_regs[it->second];
    }
    /// Stored value (model side); throws std::out_of_range for a hole.
    std::uint32_t get(std::uint64_t offset) const { return m_values[index(offset)]; }
    /// Stores `value` whatever the kind (model side: status registers); no callbacks.
    void set(std::uint64_t offset, std::uint32_t value) { m_values[index(offset)] = value; }
    /// The registers in declaration order.
    const std::vector<reg_def>& registers() const { return m_regs; }

    /// Serves a timed access: one aligned 32-bit word, no byte enables. Holes, bad sizes and
    /// forbidden accesses get an error response and a warning. Adds no delay.
    void transport(tlm::tlm_generic_payload& gp, const sc_core::sc_time& delay)
    {
        const std::uint64_t addr = gp.get_address();
        const bool write = gp.get_command() == tlm::TLM_WRITE_COMMAND;
        const char* what = write ? "write" : "read";
        if (gp.get_byte_enable_ptr() != nullptr) {
            fail(gp, tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE,
                 std::string(what) + " at " + hex(addr) + " with byte enables (not supported)");
            return;
        }
        if (gp.get_data_length() != 4 || gp.get_streaming_width() < 4) {
            fail(gp, tlm::TLM_BURST_ERROR_RESPONSE,
                 std::string(what) + " of " + std::to_string(gp.get_data_length()) + " bytes at " +
                     hex(addr) + " (registers take 32-bit accesses only)");
            return;
        }
        if (addr % 4 != 0) {
            fail(gp, tlm::TLM_ADDRESS_ERROR_RESPONSE,
                 std::string(what) + " at unaligned address " + hex(addr));
            return;
        }
        auto it = m_index.find(addr);
        if (it == m_index.end()) {
            fail(gp, tlm::TLM_ADDRESS_ERROR_RESPONSE,
                 std::string(what) + " at " + hex(addr) + " (no register)");
            return;
        }
        const reg_def& r = m_regs[it->second];
        std::uint32_t& stored = m_values[it->second];
        if (gp.get_command() == tlm::TLM_IGNORE_COMMAND) {
            gp.set_response_status(tlm::TLM_OK_RESPONSE);
            return;
        }
        if (!write) {
            if (r.access == reg_access::wo) {
                ++m_command_errors;
                fail(gp, tlm::TLM_COMMAND_ERROR_RESPONSE,
                     "read of write-only register " + r.name + " at " + hex(addr));
                return;
            }
            const std::uint32_t v = r.on_read ? r.on_read(stored, delay) : stored;
            std::memcpy(gp.get_data_ptr(), &v, 4);
            ++m_reads;
            gp.set_response_status(tlm::TLM_OK_RESPONSE);
            return;
        }
        if (r.access == reg_access::ro) {
            ++m_command_errors;
            fail(gp, tlm::TLM_COMMAND_ERROR_RESPONSE,
                 "write to read-only register " + r.name + " at " + hex(addr));
            return;
        }
        std::uint32_t data = 0;
        std::memcpy(&data, gp.get_data_ptr(), 4);
        reg_write w{stored, stored, data, delay};
        switch (r.access) {
        case reg_access::rw:
            w.new_value = (stored & ~r.write_mask) | (data & r.write_mask);
            break;
        case reg_access::w1c:
            w.new_value = stored & ~(data & r.write_mask);
            break;
        default: // wo: nothing is stored
            w.new_value = data & r.write_mask;
            break;
        }
        if (r.access != reg_access::wo)
            stored = w.new_value;
        ++m_writes;
        if (r.on_write && !r.on_write(w)) {
            stored = w.old_value;
            ++m_command_errors;
            fail(gp, tlm::TLM_COMMAND_ERROR_RESPONSE,
                 "write of " + hex(data) + " to " + r.name + " refused");
            return;
        }
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }

    /// Serves a debug access of any length and alignment: moves bytes until the first byte
    /// outside a register and returns the count. Reads return stored values; writes store
    /// (within the write mask, whatever the kind). No callbacks, no W1C, no counting.
    unsigned transport_dbg(tlm::tlm_generic_payload& gp)
    {
        const std::uint64_t addr = gp.get_address();
        const unsigned len = gp.get_data_length();
        unsigned char* data = gp.get_data_ptr();
        const bool write = gp.get_command() == tlm::TLM_WRITE_COMMAND;
        if (gp.get_command() == tlm::TLM_IGNORE_COMMAND)
            return 0;
        unsigned n = 0;
        for (; n < len; ++n) {
            const std::uint64_t a = addr + n;
            auto it = m_index.find(a & ~std::uint64_t{3});
            if (it == m_index.end())
                break;
            const unsigned shift = 8 * static_cast<unsigned>(a & 3);
            std::uint32_t& stored = m_values[it->second];
            if (write) {
                const std::uint32_t bits = m_regs[it->second].write_mask & (0xffu << shift);
                stored = (stored & ~bits) | ((std::uint32_t{data[n]} << shift) & bits);
            } else {
                data[n] = static_cast<unsigned char>(stored >> shift);
            }
        }
        return n;
    }

    std::uint64_t reads() const { return m_reads; }   ///< guest reads served
    std::uint64_t writes() const { return m_writes; } ///< guest writes applied
    std::uint64_t errors() const { return m_errors; } ///< error responses of any kind
    /// Forbidden accesses: writes to RO, reads of WO, refused writes.
    std::uint64_t command_errors() const { return m_command_errors; }

    /// "0x1f" formatting for messages.
    static std::string hex(std::uint64_t v)
    {
        static const char digits[] = "0123456789abcdef";
        std::string s;
        do {
            s.insert(s.begin(), digits[v & 0xf]);
            v >>= 4;
        } while (v != 0);
        return "0x" + s;
    }

private:
    std::size_t index(std::uint64_t offset) const
    {
        auto it = m_index.find(offset);
        if (it == m_index.end())
            throw std::out_of_range(m_name + ": no register at " + hex(offset));
        return it->second;
    }
    void fail(tlm::tlm_generic_payload& gp, tlm::tlm_response_status s, const std::string& msg)
    {
        ++m_errors;
        gp.set_response_status(s);
        if (m_warn)
            m_warn(msg);
        else
            SC_REPORT_WARNING("vgpu/reg_bank", (m_name + ": " + msg).c_str());
    }

    std::string m_name;
    std::vector<reg_def> m_regs;
    std::vector<std::uint32_t> m_values;
    std::map<std::uint64_t, std::size_t> m_index;
    std::function<void(const std::string&)> m_warn;
    std::uint64_t m_reads = 0, m_writes = 0, m_errors = 0, m_command_errors = 0;
};

} // namespace vgpu::tlm_bus
