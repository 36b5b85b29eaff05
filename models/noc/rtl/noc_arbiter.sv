// The barrier-aware NoC output-port arbiter in synthesizable SystemVerilog: the RTL that
// models/noc/core/arbiter.{h,cpp} (round_robin_arbiter, barrier_aware_arbiter) is the golden
// reference of; test/noc_rtl compares them cycle by cycle. Ports, timing and figures:
// models/noc/rtl/README.md.
//
// One clock, synchronous active-high reset, no delays. The grant is combinational from the
// registered round-robin pointer and this cycle's requests (the core's grant() call at a clock
// edge); the pointer moves at the rising edge of a cycle with a grant. A cycle without a valid
// request changes nothing, so the adapter need not clock the block while it has no work.
module noc_arbiter #(
    parameter int N  = 64, // requesters (the largest any shipped platform needs: README)
    parameter int CW = 8,  // bits of a barrier count
    parameter int AW = 16, // bits of an age (cycles waited; the adapter saturates)
    localparam int IW = (N > 1) ? $clog2(N) : 1
) (
    input  logic                  clk,
    input  logic                  rst,           // synchronous, active high
    input  logic                  barrier_aware, // 0: round_robin, 1: barrier_aware
    input  logic [AW-1:0]         max_wait,      // ageing threshold in cycles; 0 = off
    input  logic [N-1:0]          req_valid,     // requester i has a head request
    input  logic [N*CW-1:0]       req_count,     // its barrier count: bits i*CW +: CW
    input  logic [N*AW-1:0]       req_age,       // cycles it has waited: bits i*AW +: AW
    output logic [N-1:0]          gnt,           // one-hot grant (zero when none)
    output logic                  gnt_valid,     // a grant this cycle
    output logic [IW-1:0]         gnt_idx,       // the granted requester
    output logic [1:0]            gnt_reason,    // 0 none, 1 rotation, 2 priority, 3 age
    output logic                  last_valid,    // state: a grant happened since reset
    output logic [IW-1:0]         last_idx       // state: the requester granted last
);
    // grant_reason of models/noc/core/arbiter.h
    localparam logic [1:0] REASON_NONE = 2'd0;
    localparam logic [1:0] REASON_ROTATION = 2'd1;
    localparam logic [1:0] REASON_PRIORITY = 2'd2;
    localparam logic [1:0] REASON_AGE = 2'd3;

    // The lowest set bit of v (one-hot or zero), by a log-depth prefix OR.
    function automatic logic [N-1:0] lowest_one(input logic [N-1:0] v);
        logic [N-1:0] below; // below[i]: some bit under i is set
        below = v << 1;
        for (int s = 1; s < N; s = s * 2)
            below = below | (below << s);
        lowest_one = v & ~below;
    endfunction

    // Index of the set bit of a one-hot vector (0 when zero): bit b is the OR of the inputs
    // whose index has bit b set (a balanced OR tree per bit).
    function automatic logic [IW-1:0] encode(input logic [N-1:0] onehot);
        logic [IW-1:0] idx;
        for (int b = 0; b < IW; b++) begin
            logic [N-1:0] has_bit;
            for (int i = 0; i < N; i++)
                has_bit[i] = ((i >> b) & 1) != 0;
            idx[b] = |(onehot & has_bit);
        end
        encode = idx;
    endfunction

    // Inputs after the last grant: the round-robin search starts there (all inputs before the
    // first grant), wrapping to the lowest index.
    logic [N-1:0] after_last;
    always_comb
        for (int i = 0; i < N; i++)
            after_last[i] = !last_valid || (IW'(i) > last_idx);

    // The first of v, searching cyclically from the input after the last grant (the core's
    // first_after_last).
    function automatic logic [N-1:0] first_after_last(input logic [N-1:0] v,
                                                      input logic [N-1:0] after);
        logic [N-1:0] later;
        later = v & after;
        first_after_last = lowest_one(|later ? later : v);
    endfunction

    // Ageing: heads that have waited max_wait cycles.
    logic [N-1:0] aged;
    always_comb
        for (int i = 0; i < N; i++)
            aged[i] = req_valid[i] && barrier_aware && max_wait != '0 && req_age[i*AW+:AW] >= max_wait;

    // The valid heads with the highest barrier count: from the top bit down, keep those with
    // the bit set if any has it (CW steps of a wide OR instead of a comparator chain).
    logic [N-1:0] highest;
    always_comb begin
        highest = req_valid;
        for (int b = CW - 1; b >= 0; b--) begin
            logic [N-1:0] with_bit;
            for (int i = 0; i < N; i++)
                with_bit[i] = highest[i] && req_count[i*CW+b];
            if (|with_bit)
                highest = with_bit;
        end
    end

    // Ties among the highest counts go round-robin; the test-only define swaps that tie-break
    // for a fixed priority (lowest index first), so the testbench can show it catches it.
`ifdef VGPU_RTL_BREAK_TIE
    localparam logic [N-1:0] TIE_AFTER = '1;
`endif

    always_comb begin
        gnt = '0;
        gnt_reason = REASON_NONE;
        if (!barrier_aware) begin
            gnt = first_after_last(req_valid, after_last);
            gnt_reason = |req_valid ? REASON_ROTATION : REASON_NONE;
        end else if (|aged) begin
            gnt = first_after_last(aged, after_last);
            gnt_reason = REASON_AGE;
        end else if (|req_valid) begin
`ifdef VGPU_RTL_BREAK_TIE
            gnt = first_after_last(highest, TIE_AFTER);
`else
            gnt = first_after_last(highest, after_last);
`endif
            // A valid head outside the highest set has a lower count.
            gnt_reason = |(req_valid & ~highest) ? REASON_PRIORITY : REASON_ROTATION;
        end
    end
    assign gnt_valid = |gnt;
    assign gnt_idx = encode(gnt);

    // The round-robin pointer (the core's m_last): only a grant moves it.
    always_ff @(posedge clk)
        if (rst) begin
            last_valid <= 1'b0;
            last_idx <= '0;
        end else if (gnt_valid) begin
            last_valid <= 1'b1;
            last_idx <= gnt_idx;
        end

`ifndef SYNTHESIS
    // Checked at every clock edge out of reset (verilator --assert).
    a_onehot: assert property (@(posedge clk) disable iff (rst) $onehot0(gnt))
        else $error("noc_arbiter: grant not one-hot: %b", gnt);
    a_no_request: assert property (@(posedge clk) disable iff (rst) (gnt & ~req_valid) == '0)
        else $error("noc_arbiter: grant %b without a valid request %b", gnt, req_valid);
    a_work_conserving: assert property (@(posedge clk) disable iff (rst) gnt_valid == |req_valid)
        else $error("noc_arbiter: requests %b but grant %b", req_valid, gnt);
    a_index: assert property (@(posedge clk) disable iff (rst) !gnt_valid || (gnt[gnt_idx] && req_valid[gnt_idx]))
        else $error("noc_arbiter: index %0d is not the granted valid input", gnt_idx);
    a_reason: assert property (@(posedge clk) disable iff (rst) gnt_valid == (gnt_reason != REASON_NONE))
        else $error("noc_arbiter: reason %0d with grant %b", gnt_reason, gnt);
`endif
endmodule
