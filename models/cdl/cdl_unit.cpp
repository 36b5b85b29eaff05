// Each SM's CDL access controller and scheduling/execution core, behind the SM's unit seam.
// See models/cdl/README.md.
#include "models/cdl/cdl_unit.h"

#include <algorithm>
#include <cstdio>

namespace vgpu::cdl {

struct cdl_unit::counters {
    counters(stats::group& ctrl, stats::group& core)
        : instructions(ctrl, "instructions", "count", "CDL instructions received"),
          legacy(ctrl, "legacy", "count", "CDLs of the per-lane form (one register each)"),
          bulk(ctrl, "bulk", "count", "CDLs of the bulk form (mode identifier set)"),
          illegal(ctrl, "illegal", "count",
                  "CDLs refused as illegal (CBV missing, n = 0, registers past the file)"),
          line_reads(core, "line_reads", "count", "line reads of bulk CDLs"),
          bytes_read(core, "bytes_read", "bytes", "bytes bulk CDLs read from memory"),
          out_of_range(core, "out_of_range_bytes", "bytes",
                       "bytes of CDLs (both forms) beyond their CBV, read as zero"),
          registers(core, "registers_written", "count", "registers bulk CDLs wrote"),
          in_flight(core, "reads_in_flight", "count",
                    "line reads of the bulk CDL in flight, sampled at each read's issue"),
          read_latency(core, "read_latency", "ns", "issue to data of a bulk CDL's line read")
    {
    }
    stats::counter instructions, legacy, bulk, illegal, line_reads, bytes_read, out_of_range,
        registers;
    stats::average in_flight, read_latency;
};

cdl_unit::cdl_unit(sm::unit_host& host, const cbv_table& table, const cdl_config& cfg)
    : m_host(host), m_sm(host.params()), m_table(table), m_cfg(cfg),
      m_ctrl_stats(m_sm.path + "_cdl.controller"), m_core_stats(m_sm.path + "_cdl.core"),
      m_count(std::make_unique<counters>(m_ctrl_stats, m_core_stats))
{
}

cdl_unit::~cdl_unit() = default;

sm::unit_factory cdl_unit::factory(const cbv_table& table, const cdl_config& cfg)
{
    return
        [&table, cfg](sm::unit_host& host) { return std::make_unique<cdl_unit>(host, table, cfg); };
}

void cdl_unit::issue(unsigned warp, const sm::step_result& r)
{
    const sm::mem_access& a = *r.access;
    request q;
    q.bulk = a.count > 0;
    q.dst = a.reg;
    q.dwords = a.count;
    q.offset = a.addr[0]; // a register offset: lane 0 (claim 4); an immediate: every lane
    for (unsigned l = 0; l < sm::warp_size; ++l)
        q.offsets[l] = static_cast<std::uint32_t>(a.addr[l]);
    q.lane_mask = a.lane_mask;
    // The access controller receives the instruction and checks it.
    ++m_count->instructions;
    ++(q.bulk ? m_count->bulk : m_count->legacy);
    const std::string err = check(q, m_table.entries(), a.cbv, m_sm.regs_per_thread);
    if (!err.empty()) {
        ++m_count->illegal;
        m_host.fault(warp, r.pc, 0, "illegal instruction: " + err);
        return;
    }
    const cbv view = m_table.entries()[a.cbv];
    if (!q.bulk) {
        // The per-lane form is a load of the lanes' dwords (kind constant).
        const legacy_plan p = plan_legacy(view, q.offsets, q.lane_mask);
        m_count->out_of_range += 4 * static_cast<unsigned>(__builtin_popcount(p.zero));
        sm::mem_access load = a;
        for (unsigned l = 0; l < sm::warp_size; ++l)
            load.addr[l] = p.read >> l & 1 ? p.addr[l] : 0;
        load.lane_mask = p.read;
        m_host.load(warp, r, load, tlm_bus::access_kind::constant, p.zero);
        return;
    }
    // The bulk form: the scheduling/execution core reads the range line by line.
    unsigned id = 0;
    while (id < m_ops.size() && m_ops[id])
        ++id;
    if (id == m_ops.size())
        m_ops.emplace_back();
    m_ops[id] = std::make_unique<bulk_op>();
    bulk_op& op = *m_ops[id];
    op.warp = warp;
    op.pc = r.pc;
    op.issue = m_host.cycle() + m_sm.lsu_delay;
    op.reads = bulk_reads(view, q.offset, q.dwords, m_sm.line_bytes);
    op.data.assign(op.reads.size() * m_sm.line_bytes, 0);
    op.done.assign(op.reads.size(), 0);
    op.loader.emplace(q.dst, q.dwords);
    m_count->out_of_range += out_of_range_bytes(op.reads);
    m_host.begin_access(warp);
    issue_reads(id);
}

void cdl_unit::read(unsigned id, std::size_t i, std::uint64_t at)
{
    bulk_op& op = *m_ops[id];
    sm::line_read rd;
    rd.warp = op.warp;
    rd.pc = op.pc;
    rd.kind = tlm_bus::access_kind::constant;
    rd.addr = op.reads[i].addr;
    rd.bytes = op.reads[i].valid; // the bytes beyond the CBV read as zero, never from memory
    rd.data = &op.data[i * m_sm.line_bytes];
    rd.at = at;
    rd.tag = id;
    rd.index = static_cast<std::uint32_t>(i);
    m_host.read_line(*this, rd);
}

void cdl_unit::issue_reads(unsigned id)
{
    bulk_op& op = *m_ops[id];
    const unsigned max = m_cfg.max_outstanding;
    if (m_sm.accurate) {
        for (; op.next < op.reads.size() && op.in_flight < max; ++op.next) {
            ++op.in_flight;
            m_count->in_flight.sample(op.in_flight);
            read(id, op.next, op.issue + op.next);
        }
        return;
    }
    // Fast mode: read i issues at issue + i (one request per cycle), and not before read
    // i - max retired (as in accurate mode, a read holds its place until it retires, in
    // address order); then the reads retire. A read that page-faulted is not done yet: it is
    // replayed once the host answered, and read_arrived() retires it and those after it (the
    // reads after it took their places without waiting for it).
    std::vector<std::uint64_t> retire_at(op.reads.size());
    for (; op.next < op.reads.size(); ++op.next) {
        const std::size_t i = op.next;
        std::uint64_t at = op.issue + i;
        if (i >= max)
            at = std::max(at, retire_at[i - max]);
        unsigned flying = 1;
        for (std::size_t j = i >= max ? i - max + 1 : 0; j < i; ++j)
            flying += retire_at[j] > at ? 1 : 0;
        m_count->in_flight.sample(flying);
        read(id, i, at);
        retire_at[i] = std::max(op.done[i], i > 0 ? retire_at[i - 1] : 0);
    }
    retire(id, 0);
}

void cdl_unit::read_made(const sm::line_read& rd, const sm::line_result& res)
{
    bulk_op& op = *m_ops[rd.tag];
    if (rd.bytes > 0) {
        ++m_count->line_reads;
        m_count->bytes_read += rd.bytes;
        if (res.status != tlm::TLM_OK_RESPONSE && !op.failed) {
            op.failed = true;
            op.fail_vaddr = rd.addr;
        }
    }
    m_count->read_latency.sample(
        static_cast<double>((res.end - std::min(res.end, res.start)) * m_sm.core_ps) / 1000.0);
    if (!m_sm.accurate)
        op.done[rd.index] = res.end;
}

void cdl_unit::read_arrived(const sm::line_read& rd, const sm::line_result& res, std::uint64_t now)
{
    // The read held its place until its data was here.
    m_ops[rd.tag]->done[rd.index] = res.end;
    retire(rd.tag, now);
}

void cdl_unit::retire(unsigned id, std::uint64_t now)
{
    bulk_op& op = *m_ops[id];
    // Claim 8: reads retire in address order; each completed 128 bytes writes a register.
    while (op.retired < op.reads.size() && op.done[op.retired] != 0) {
        const std::size_t i = op.retired++;
        --op.in_flight;
        // Accurate mode retires when the data is here (now); fast mode at the read's end.
        const std::uint64_t at = std::max({op.end, op.done[i], now});
        op.end = at;
        op.loader->retire(&op.data[i * m_sm.line_bytes], op.reads[i].bytes,
                          [&](unsigned reg, const lane_values& v) {
                              m_host.write_register(op.warp, reg, v, at);
                              ++m_count->registers;
                          });
    }
    if (m_sm.accurate && op.retired < op.reads.size()) {
        issue_reads(id); // the retired reads' places go to the next ones
        m_host.wake(op.warp);
        return;
    }
    if (op.retired < op.reads.size())
        return;
    // Every read retired: the instruction is complete.
    const bool failed = op.failed;
    const std::uint64_t va = op.fail_vaddr, end = op.end;
    const std::uint32_t pc = op.pc;
    const unsigned warp = op.warp;
    m_ops[id].reset();
    // A failed read ends the CTA first, so that ending the access issues none of its warps.
    if (failed) {
        char msg[96];
        std::snprintf(msg, sizeof msg, "CDL read at VA 0x%llx failed",
                      static_cast<unsigned long long>(va));
        m_host.fault(warp, pc, va, msg);
    }
    m_host.end_access(warp, end);
}

} // namespace vgpu::cdl
