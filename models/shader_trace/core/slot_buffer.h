// The shader-trace group buffer (seed 000): K slots of one group each, a free list, the output
// list OUTLis (a doubly linked list over slots in store order: head = written next) and one
// input list INLis per source (its slots, oldest first); the stall and replace policies and
// the claim-6/7 victim choice. Pure C++, no SystemC. See models/shader_trace/README.md.
#pragma once

#include "models/shader_trace/core/group_buffer.h"
#include "models/shader_trace/core/packer.h"

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace vgpu::shader_trace {

enum class full_policy : std::uint8_t { stall, replace };
enum class victim_policy : std::uint8_t { same_source, lowest_priority };
/// The order the write engine takes groups in: `outlis` (S40, the patent's) or, for tests
/// only, `slot_index` (the lowest-numbered occupied slot first, as a buffer without OUTLis
/// would): that order writes a source's groups out of order once slots are reused.
enum class write_order : std::uint8_t { outlis, slot_index };

class slot_buffer : public group_buffer {
public:
    using group_buffer::none; ///< no slot (list ends)

    /// `slots` = K (>= 1); `sources` sources, priority = position in `priority` (first =
    /// highest; lowest_priority walks it from the end).
    slot_buffer(unsigned slots, unsigned sources, full_policy full, victim_policy victim,
                std::vector<unsigned> priority = {}, write_order order = write_order::outlis);

    /// Stores `g` of `source` (S10..S50).
    store_result store(unsigned source, group g) override;
    /// The write engine (S40): takes the OUTLis head, which leaves OUTLis and its INLis and is
    /// in flight until write_done(); nothing when OUTLis is empty. If groups of its source
    /// were lost since that source's last group was taken, the group's first token gets the
    /// loss flag (docs/trace-format.md).
    std::optional<unsigned> take_head() override;
    /// The write of `slot` was issued (the unit) or completed (a model that holds the slot
    /// until then): it returns to the free list.
    void write_done(unsigned slot) override;
    /// A group of `source` taken by the write engine did not reach memory (region full, write
    /// refused): the source's next group taken gets the loss flag.
    void mark_lost(unsigned source) override { m_lost[source] = true; }

    const group& contents(unsigned slot) const override { return m_slot[slot].g; }
    unsigned source_of_slot(unsigned slot) const override { return m_slot[slot].source; }
    unsigned head() const override { return m_head; } ///< OUTLis head (none if empty)
    unsigned tail() const { return m_tail; }          ///< OUTLis tail
    unsigned next(unsigned slot) const { return m_slot[slot].next; }
    unsigned prev(unsigned slot) const { return m_slot[slot].prev; }
    std::vector<unsigned> outlis() const; ///< OUTLis, head to tail
    const std::deque<unsigned>& inlis(unsigned source) const { return m_in[source]; }
    std::size_t free_slots() const override { return m_free.size(); }
    std::size_t in_flight() const { return m_flight; }
    /// "" when every invariant holds: each slot in exactly one of free list, OUTLis, in
    /// flight; the links consistent; each INLis the OUTLis slots of its source, in OUTLis
    /// order.
    std::string check() const;

private:
    enum class where : std::uint8_t { free, outlis, flight };
    struct slot {
        group g;
        unsigned source = 0;
        unsigned prev = none, next = none;
        where at = where::free;
    };
    void append(unsigned a); ///< a becomes the OUTLis tail
    void unlink(unsigned a); ///< a leaves OUTLis (S30's unlink)
    void drop_from_inlis(unsigned source, unsigned a);
    std::optional<unsigned> victim(unsigned arriving) const;

    std::vector<slot> m_slot;
    std::vector<unsigned> m_free;
    std::vector<std::deque<unsigned>> m_in;
    std::vector<bool> m_lost; ///< per source: groups lost since its last group was taken
    std::vector<unsigned> m_priority;
    full_policy m_full;
    victim_policy m_victim;
    write_order m_order;
    unsigned m_head = none, m_tail = none;
    std::size_t m_flight = 0;
};

} // namespace vgpu::shader_trace
