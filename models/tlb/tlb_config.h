// Configuration of the TLBs and page-table walkers (section `tlb`). See models/tlb/README.md.
#pragma once

#include "models/common/config.h"
#include "models/tlb/core/xor_index.h"

#include <algorithm>
#include <string>

template <> struct vgpu::enum_names<vgpu::tlb::index_kind> {
    static constexpr std::pair<std::string_view, tlb::index_kind> table[] = {
        {"modulo", tlb::index_kind::modulo}, {"xor", tlb::index_kind::xor_hash}};
};

namespace vgpu::tlb {

/// How translations are timed (`tlb.model`).
enum class model_kind {
    timed, ///< TLB arrays, page-walk cache and walkers with real, timed PTE reads
    ideal, ///< every translation in zero time (no TLB misses): the baseline for comparisons
};
} // namespace vgpu::tlb

template <> struct vgpu::enum_names<vgpu::tlb::model_kind> {
    static constexpr std::pair<std::string_view, tlb::model_kind> table[] = {
        {"timed", tlb::model_kind::timed}, {"ideal", tlb::model_kind::ideal}};
};

namespace vgpu::tlb {

/// One TLB level: geometry and lookup latency.
struct level_config {
    unsigned sets = 16;       ///< sets (a power of two; L2: 0 = no L2 TLB)
    unsigned ways = 4;        ///< entries per set
    unsigned hit_latency = 0; ///< core cycles a lookup adds

    void declare(config::visitor& v, bool l2)
    {
        using config::spec;
        v.value("sets", sets,
                spec(l2 ? "sets of the cluster's shared L2 TLB (a power of two; 0: no L2 TLB)"
                        : "sets of each SM's L1 TLB (a power of two)")
                    .range(l2 ? 0 : 1, 1 << 16));
        v.value("ways", ways, spec("entries per set (associativity)").range(1, 64));
        v.value("hit_latency", hit_latency,
                spec(l2 ? "core cycles an L2 TLB lookup adds to an L1 TLB miss"
                        : "core cycles an L1 TLB lookup adds to every access (0: looked up in "
                          "parallel with the L1's tags, as the L1 hit latency already includes)")
                    .range(0, 10000)
                    .unit("cycles"));
    }
};

/// Section `tlb`: the SMs' L1 TLBs, each cluster's shared L2 TLB, page-walk cache and walkers.
struct tlb_config {
    model_kind model = model_kind::ideal; ///< ideal translation (default) or timed TLBs and walks
    level_config l1{16, 4, 0};            ///< per SM: 64 entries
    level_config l2{64, 8, 10};           ///< per cluster: 512 entries
    index_kind index = index_kind::xor_hash; ///< set index of both levels
    unsigned xor_bits = 0;                   ///< VPN bits the XOR index folds (0: all)
    unsigned walkers = 8;                    ///< concurrent page walks per cluster
    unsigned pwc_entries = 16;               ///< page-walk cache entries per cluster
    unsigned fault_buffer = 256;             ///< fault-buffer entries of the fault unit

    struct l1_section {
        level_config& c;
        void declare(config::visitor& v) { c.declare(v, false); }
    };
    struct l2_section {
        level_config& c;
        void declare(config::visitor& v) { c.declare(v, true); }
    };

    void declare(config::visitor& v)
    {
        using config::spec;
        v.choice(
            "model", model,
            spec("ideal: translation in zero time (the baseline); timed: TLB lookups, "
                 "page-walk cache and walkers whose PTE reads travel through the memory "
                 "system (fast mode not yet within 5 % of accurate mode: models/tlb/README.md)"));
        l1_section s1{l1};
        v.section("l1", s1, "Each SM's L1 TLB.");
        l2_section s2{l2};
        v.section("l2", s2, "Each cluster's shared L2 TLB.");
        v.choice("index", index,
                 spec("set index of both TLB levels: modulo = the low VPN bits; xor = set-index "
                      "bit i is the XOR of VPN bits i, i+n, i+2n, ... (n = log2(sets))"));
        v.value("xor_bits", xor_bits,
                spec("lowest VPN bits the xor index folds (0: all); at least twice the index "
                     "width of each level")
                    .range(0, 64));
        v.value("walkers", walkers,
                spec("page walks a cluster runs at once; a miss that finds them busy waits")
                    .range(1, 1024));
        v.value("pwc_entries", pwc_entries,
                spec("entries of each cluster's page-walk cache (upper levels of recent walks; "
                     "0: none)")
                    .range(0, 4096));
        v.value("fault_buffer", fault_buffer,
                spec("entries of the GPU's fault buffer (one record per faulting page); records "
                     "beyond it wait in the fault unit, counted, until the host pops one")
                    .range(1, 65536));
    }

    /// Cross-field checks against the VPN width (32-bit VAs, pages of `page`). The set index
    /// matters only to timed TLBs: with tlb.model ideal only the set counts are checked.
    void validate(config::checker& c, byte_size page) const
    {
        unsigned shift = 0;
        while ((std::uint64_t{1} << shift) < page.bytes)
            ++shift;
        const unsigned vpn_bits = shift < 32 ? 32 - shift : 0;
        const auto num = [](auto v) { return std::to_string(v); };
        auto check = [&](const std::string& sets_key, unsigned sets) {
            if (sets == 0 || (sets & (sets - 1)) != 0) {
                c.error(sets_key, "sets must be a power of two (got " + num(sets) + ")");
                return;
            }
            if (model == model_kind::ideal)
                return;
            const std::string e = index_error(index, sets, xor_bits, vpn_bits);
            if (e.empty())
                return;
            const unsigned n = log2_exact(sets);
            const config::checker::key_value k_sets{sets_key, num(sets)},
                k_xor{"tlb.xor_bits", num(xor_bits)}, k_index{"tlb.index", "xor"},
                k_page{"memory.page_bytes", format(page)}, k_model{"tlb.model", "timed"};
            const std::string other = "tlb.index to modulo or tlb.model to ideal";
            if (n == 0) {
                c.conflict({k_sets, k_index, k_model}, e,
                           "set " + sets_key + " to at least 2, " + other);
            } else if (xor_bits > vpn_bits) {
                std::string fix = "set tlb.xor_bits to at most " + num(vpn_bits) + " (0: all)";
                if (xor_bits <= 32 - 12)
                    fix += " or memory.page_bytes to at most " +
                           format(byte_size{std::uint64_t{1} << (32 - xor_bits)});
                c.conflict({k_xor, k_page, k_model}, e, fix);
            } else if (xor_bits != 0) {
                c.conflict({k_xor, k_sets, k_index, k_model}, e,
                           "set tlb.xor_bits to at least " + num(std::min(2 * n, vpn_bits)) +
                               " (0: all), " + sets_key + " to at most " +
                               num(std::uint64_t{1} << (xor_bits / 2)) + ", " + other);
            } else {
                std::string fix = "set " + sets_key + " to at most " +
                                  num(std::uint64_t{1} << (vpn_bits / 2)) + ", ";
                if (2 * n <= 32 - 12)
                    fix += "memory.page_bytes to at most " +
                           format(byte_size{std::uint64_t{1} << (32 - 2 * n)}) + ", ";
                c.conflict({k_sets, k_page, k_index, k_model}, e, fix + other);
            }
        };
        check("tlb.l1.sets", l1.sets);
        if (l2.sets != 0)
            check("tlb.l2.sets", l2.sets);
    }
};

/// The set index the TLB arrays use: tlb.index when timed; with tlb.model ideal the arrays stay
/// empty, and modulo works with every geometry validate() lets through.
inline index_kind array_index(const tlb_config& cfg)
{
    return cfg.model == model_kind::ideal ? index_kind::modulo : cfg.index;
}

} // namespace vgpu::tlb
