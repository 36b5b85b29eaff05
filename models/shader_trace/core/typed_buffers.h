// Per-type trace buffers sized ahead of time (seed 002): an instrumented kernel's basic blocks
// emit records of several types, each type into its own buffer; a pre-pass sizes each buffer
// from the blocks' execution counts so that it cannot overflow; a post-pass parses the buffers
// and merges them by thread and sequence number into one trace in execution order. Pure C++,
// no SystemC. See models/shader_trace/README.md ("Per-type trace buffers").
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace vgpu::shader_trace {

/// Record types: control flow (block id) and memory (address and size).
enum class record_type : std::uint8_t { control = 0, memory = 1 };
constexpr unsigned record_types = 2;

/// Bytes of one record of each type: thread, block, sequence (u32 each), then the payload
/// (control: a u32 pad; memory: size u32, address u64).
constexpr unsigned record_bytes(record_type t)
{
    return t == record_type::control ? 16 : 24;
}

/// One record as the instrumentation writes it.
struct record {
    record_type type = record_type::control;
    std::uint32_t thread = 0;  ///< hardware thread id
    std::uint32_t block = 0;   ///< basic block id
    std::uint32_t seq = 0;     ///< the thread's record counter (our addition)
    std::uint32_t size = 0;    ///< memory: access size in bytes
    std::uint64_t address = 0; ///< memory: the address
    bool operator==(const record& o) const
    {
        return type == o.type && thread == o.thread && block == o.block && seq == o.seq &&
               size == o.size && address == o.address;
    }
};

/// The static instrumentation of a kernel: records of each type each block emits.
struct instrumentation {
    std::vector<std::array<std::uint32_t, record_types>> per_block; ///< [block][type]
};

/// Pre-pass: each type's buffer size = sum over blocks of records per block x executions of
/// the block (summed over threads, from the profiling run) x record size.
std::array<std::uint64_t, record_types> buffer_sizes(const instrumentation& ins,
                                                     const std::vector<std::uint64_t>& executions);

/// One type's buffer with its next-free pointer: an append that does not fit is refused
/// and counted, never written past the end.
class typed_buffer {
public:
    typed_buffer(record_type type, std::uint64_t bytes);
    /// A buffer as the GPU filled it: `used` bytes read back from memory (at most `capacity`;
    /// more is cut at the capacity), and the records the instrumentation refused.
    static typed_buffer from_bytes(record_type type, std::vector<std::uint8_t> used,
                                   std::uint64_t capacity, std::uint64_t refused = 0);
    /// The atomic add on the next-free pointer, then the store; false if it does not fit.
    bool append(const record& r);
    std::uint64_t used() const { return m_data.size(); }  ///< bytes written
    std::uint64_t capacity() const { return m_capacity; } ///< bytes allocated
    std::uint64_t refused() const { return m_refused; }   ///< records not written
    const std::vector<std::uint8_t>& bytes() const { return m_data; }
    record_type type() const { return m_type; }

private:
    record_type m_type;
    std::uint64_t m_capacity, m_refused = 0;
    std::vector<std::uint8_t> m_data;
};

/// Post-pass: every buffer's records, merged by thread and then sequence number (each thread's
/// records in the order it executed them); `error` names a malformed buffer and offset.
std::vector<record> merge(const std::vector<typed_buffer>& buffers, std::string& error);

} // namespace vgpu::shader_trace
