// The host's own page table (seed 003): what the host OS knows of each page of the shared
// address space, apart from the GPU's page table, and the shadow thread's decision for a fault
// record (the patent's steps 52 and 54). Pure C++, no SystemC. See models/host/README.md
// ("Page faults").
#pragma once

#include <cstdint>
#include <unordered_map>

namespace vgpu::host {

/// A page's state in the host's page table.
enum class host_page_state : std::uint8_t {
    absent,  ///< never brought in (an on_demand page, or one the placement has not placed)
    present, ///< resident: it has a frame in GPU memory
    swapped  ///< swapped out: evicted, its contents kept by the host
};

/// One entry of the host's page table.
struct host_pte {
    host_page_state state = host_page_state::absent;
    bool writable = true;       ///< a store may write it
    bool copy_on_write = false; ///< not writable until a store copies it (then writable)
};

/// The type of a fault record (tlb::fault_type, FAULT_INFO bits 8..15).
enum class record_type : std::uint8_t { not_present = 0, protection = 1, other = 2 };

/// What the shadow thread does for a record.
enum class fault_step : std::uint8_t {
    other_exception, ///< 52 -> 58: not a page fault, the other-exception branch (fatal)
    not_mapped,      ///< 54: no allocation holds the address: the OS refuses it (fatal)
    resolved,        ///< 54: the repeated access succeeds (another thread served the page)
    allocate,        ///< 54 -> 42: the page is absent: the OS places and fills it
    swap_in,         ///< 54 -> 42: the page is swapped out: the OS brings it back
    copy_on_write,   ///< 54 -> 42: a store to a copy-on-write page: the OS copies it
    protection       ///< 54 -> 42: a store to a read-only page: the OS refuses it (fatal)
};

/// Readable name of a step, e.g. "swap in".
constexpr const char* step_text(fault_step s)
{
    switch (s) {
    case fault_step::other_exception:
        return "other exception";
    case fault_step::not_mapped:
        return "not mapped";
    case fault_step::resolved:
        return "already resolved";
    case fault_step::allocate:
        return "allocate";
    case fault_step::swap_in:
        return "swap in";
    case fault_step::copy_on_write:
        return "copy on write";
    case fault_step::protection:
        return "protection";
    }
    return "?";
}

/// True when the step runs the OS's page-fault handler (host.fault_latency).
constexpr bool runs_handler(fault_step s)
{
    return s == fault_step::allocate || s == fault_step::swap_in ||
           s == fault_step::copy_on_write || s == fault_step::protection;
}

/// The host's page table: entries by virtual page number.
class host_page_table {
public:
    /// Declares page vpn (of an allocation) with its protection; absent until brought in.
    void declare(std::uint64_t vpn, bool writable, bool copy_on_write)
    {
        host_pte& e = m_pages[vpn];
        e.writable = writable && !copy_on_write;
        e.copy_on_write = copy_on_write;
    }
    /// Page vpn is resident now.
    void present(std::uint64_t vpn) { m_pages[vpn].state = host_page_state::present; }
    /// Page vpn was evicted: swapped out.
    void swap_out(std::uint64_t vpn) { m_pages[vpn].state = host_page_state::swapped; }
    /// A store copied copy-on-write page vpn: it is private and writable now.
    void copied(std::uint64_t vpn)
    {
        host_pte& e = m_pages[vpn];
        e.copy_on_write = false;
        e.writable = true;
    }
    /// The entry of vpn, or nullptr when no allocation declared it.
    const host_pte* find(std::uint64_t vpn) const
    {
        const auto it = m_pages.find(vpn);
        return it == m_pages.end() ? nullptr : &it->second;
    }
    std::size_t size() const { return m_pages.size(); } ///< declared pages

    /// Steps 52 and 54: the record's type, then the same access (a store when `write`)
    /// repeated against this table.
    fault_step decide(record_type type, std::uint64_t vpn, bool write) const
    {
        if (type == record_type::other)
            return fault_step::other_exception; // 52 -> 58
        const host_pte* e = find(vpn);
        if (!e)
            return fault_step::not_mapped;
        // A store to a read-only page is refused whether or not the page is in.
        if (write && !e->writable && !e->copy_on_write)
            return fault_step::protection;
        switch (e->state) {
        case host_page_state::absent:
            return fault_step::allocate; // a store to a copy-on-write page gets its own copy
        case host_page_state::swapped:
            return fault_step::swap_in;
        case host_page_state::present:
            break;
        }
        return write && e->copy_on_write ? fault_step::copy_on_write : fault_step::resolved;
    }

private:
    std::unordered_map<std::uint64_t, host_pte> m_pages;
};

} // namespace vgpu::host
