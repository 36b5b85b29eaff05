// The shader-trace unit's group buffer as RTL: the slots' free list, OUTLis (doubly linked over
// the slots, head written next), one INLis per source, in-flight slots, stall and replace.
// Same behaviour as models/shader_trace/core/slot_buffer, one core call per port per cycle.
// See models/shader_trace/rtl/README.md.
//
// One clock (clk, rising edge), synchronous active-high reset (rst). No delays. Carries a tag
// per slot, not the tokens: the slot index addresses the unit's payload RAM.
//
// A cycle applies its inputs in this order, each seeing the state the previous one left (the
// core's calls in the same order): take (take_head), done (write_done), store (store),
// lost (mark_lost). The results of take and store are combinational outputs of that cycle;
// the state after them is registered at the rising edge.
//
// Sources are numbered by priority, 0 the highest: `lowest_priority` takes the victim from the
// highest-numbered source holding a slot in OUTLis (the adapter maps the core's priority list).
module outlis_buffer #(
    parameter int SLOTS   = 16,  // K, >= 1
    parameter int SOURCES = 10,  // sources 0 .. SOURCES-1, >= 1
    parameter int TAG_W   = 16,  // bits of the tag stored with a group
    localparam int PW = SLOTS > 1 ? $clog2(SLOTS) : 1,  // a slot index
    localparam int SW = SOURCES > 1 ? $clog2(SOURCES) : 1,  // a source
    localparam int CW = $clog2(SLOTS + 1)  // a count of slots
) (
    input logic clk,
    input logic rst,  // synchronous, active high: every control register is reset

    // Configuration, held while out of reset.
    input logic cfg_replace,  // full policy: 0 stall, 1 replace
    input logic cfg_lowest,   // replace victim: 0 same_source, 1 lowest_priority

    // take_head(): the OUTLis head leaves OUTLis and its INLis and is in flight.
    input  logic             take,
    output logic             take_ok,    // there was a head (else nothing changed)
    output logic [  PW-1:0]  take_slot,
    output logic [  SW-1:0]  take_src,
    output logic [TAG_W-1:0] take_tag,
    output logic             take_loss,  // set the loss flag on the group's first token

    // write_done(slot): an in-flight slot returns to the free list; any other slot is ignored.
    input logic          done_valid,
    input logic [PW-1:0] done_slot,

    // store(source, group)
    input  logic             st_valid,
    input  logic [  SW-1:0]  st_src,
    input  logic [TAG_W-1:0] st_tag,
    input  logic             st_empty,     // the group has no token (no loss flag to carry)
    output logic [     1:0]  st_kind,      // KIND_* below (meaningful with st_valid)
    output logic [  PW-1:0]  st_slot,      // stored, replaced: the slot
    output logic [  SW-1:0]  st_victim,    // replaced: whose group was overwritten
    output logic [TAG_W-1:0] st_lost_tag,  // replaced: the overwritten group's tag

    // mark_lost(source)
    input logic          lost_valid,
    input logic [SW-1:0] lost_src,

    // The state, for the testbench and an adapter's checks (registered values).
    output logic [      PW-1:0] head,
    output logic [      PW-1:0] tail,
    output logic [      CW-1:0] count,         // slots in OUTLis
    output logic [      CW-1:0] free_count,
    output logic [      CW-1:0] flight_count,
    output logic [SLOTS*PW-1:0] slot_next,     // per slot: OUTLis next (free: the stack's next)
    output logic [SLOTS*SW-1:0] slot_src,      // per slot: its group's source
    output logic [ SLOTS*2-1:0] slot_where,    // per slot: AT_* below
    output logic [ SOURCES-1:0] source_lost    // per source: a loss not yet flagged
);
  localparam logic [1:0] KIND_STORED = 2'd0, KIND_REPLACED = 2'd1, KIND_STALL = 2'd2,
      KIND_DROPPED = 2'd3;
  localparam logic [1:0] AT_FREE = 2'd0, AT_OUTLIS = 2'd1, AT_FLIGHT = 2'd2;
  localparam logic [CW-1:0] ALL = CW'(SLOTS), ONE = CW'(1);

  // Control state (reset).
  logic [PW-1:0] head_q, tail_q, ftop_q;  // ftop: top of the free stack (LIFO, slot 0 first)
  logic [CW-1:0] cnt_q, nfree_q, nflight_q;
  (* mem2reg *) logic [PW-1:0] next_q [SLOTS];  // OUTLis successor; free: the stack's next
  (* mem2reg *) logic [1:0] where_q [SLOTS];
  logic [SOURCES-1:0] in_valid_q, lost_q;
  // Written before they are read (not reset): a slot's links and contents, INLis ends.
  (* mem2reg *) logic [PW-1:0] prev_q [SLOTS], in_next_q [SLOTS];
  (* mem2reg *) logic [SW-1:0] src_q [SLOTS];
  (* mem2reg *) logic [TAG_W-1:0] tag_q [SLOTS];
  logic [SLOTS-1:0] empty_q;
  (* mem2reg *) logic [PW-1:0] in_head_q [SOURCES], in_tail_q [SOURCES];

  // Next state, built in the order of the core's calls.
  logic [PW-1:0] head_n, tail_n, ftop_n;
  logic [CW-1:0] cnt_n, nfree_n, nflight_n;
  (* mem2reg *) logic [PW-1:0] next_n [SLOTS], prev_n [SLOTS], in_next_n [SLOTS];
  (* mem2reg *) logic [1:0] where_n [SLOTS];
  (* mem2reg *) logic [SW-1:0] src_n [SLOTS];
  (* mem2reg *) logic [TAG_W-1:0] tag_n [SLOTS];
  logic [SLOTS-1:0] empty_n;
  logic [SOURCES-1:0] in_valid_n, lost_n;
  (* mem2reg *) logic [PW-1:0] in_head_n [SOURCES], in_tail_n [SOURCES];

  logic [PW-1:0] a;  // the slot an operation works on
  logic [SW-1:0] s, vs;  // a source; the victim source
  logic victim_found, done_ok;
  logic [SOURCES-1:0] smear, onehot;  // the lowest_priority victim's encoder
  logic [CW-1:0] st_free;  // free slots the store found

  always_comb begin
    head_n = head_q;
    tail_n = tail_q;
    ftop_n = ftop_q;
    cnt_n = cnt_q;
    nfree_n = nfree_q;
    nflight_n = nflight_q;
    for (int i = 0; i < SLOTS; i++) begin
      next_n[i] = next_q[i];
      prev_n[i] = prev_q[i];
      in_next_n[i] = in_next_q[i];
      where_n[i] = where_q[i];
      src_n[i] = src_q[i];
      tag_n[i] = tag_q[i];
    end
    empty_n = empty_q;
    in_valid_n = in_valid_q;
    lost_n = lost_q;
    for (int i = 0; i < SOURCES; i++) begin
      in_head_n[i] = in_head_q[i];
      in_tail_n[i] = in_tail_q[i];
    end
    a = '0;
    s = '0;
    vs = '0;
    victim_found = 1'b0;
    smear = '0;
    onehot = '0;
    take_ok = 1'b0;
    take_slot = '0;
    take_src = '0;
    take_tag = '0;
    take_loss = 1'b0;
    st_kind = KIND_STORED;
    st_slot = '0;
    st_victim = '0;
    st_lost_tag = '0;

    // take_head (S40): the head leaves OUTLis and its INLis, of which it is the head.
    if (take && cnt_n != '0) begin
      a = head_n;
      s = src_n[a];
      take_ok = 1'b1;
      take_slot = a;
      take_src = s;
      take_tag = tag_n[a];
      head_n = next_n[a];
      cnt_n = cnt_n - ONE;
      if (in_tail_n[s] == a) in_valid_n[s] = 1'b0;
      else in_head_n[s] = in_next_n[a];
      where_n[a] = AT_FLIGHT;
      nflight_n = nflight_n + ONE;
      if (lost_n[s] && !empty_n[a]) begin
        take_loss = 1'b1;
        lost_n[s] = 1'b0;
      end
    end

    // write_done: an in-flight slot is pushed on the free stack.
    done_ok = done_valid && {1'b0, done_slot} < (PW + 1)'(SLOTS) && where_n[done_slot] == AT_FLIGHT;
    if (done_ok) begin
      where_n[done_slot] = AT_FREE;
      nflight_n = nflight_n - ONE;
      next_n[done_slot] = ftop_n;
      ftop_n = done_slot;
      nfree_n = nfree_n + ONE;
    end

    // store
    st_free = nfree_n;
    if (st_valid) begin
      if (nfree_n != '0) begin
        // S50: pop the free stack, append to OUTLis and to the source's INLis.
        a = ftop_n;
        ftop_n = next_n[a];
        nfree_n = nfree_n - ONE;
        if (cnt_n == '0) head_n = a;
        else next_n[tail_n] = a;
        prev_n[a] = tail_n;
        tail_n = a;
        cnt_n = cnt_n + ONE;
        where_n[a] = AT_OUTLIS;
        st_kind = KIND_STORED;
        st_slot = a;
      end else if (!cfg_replace) begin
        st_kind = KIND_STALL;
      end else begin
        // Claims 6/7: the victim source's INLis head; none qualifies: claim 5, dropped.
        if (cfg_lowest) begin
          // The highest-numbered source with an INLis, in log depth: smear the set bits
          // down, keep the top one, encode it.
          smear = in_valid_n;
`ifndef VGPU_RTL_BREAK_ORDER
          for (int k = 1; k < SOURCES; k = k * 2) smear = smear | (smear >> k);
          onehot = smear & ~(smear >> 1);
`else
          // Test only: the encoder runs the wrong way (the highest-priority source loses).
          for (int k = 1; k < SOURCES; k = k * 2) smear = smear | (smear << k);
          onehot = smear & ~(smear << 1);
`endif
          for (int b = 0; b < SW; b++)
            for (int i = 0; i < SOURCES; i++) if (((i >> b) & 1) == 1) vs[b] = vs[b] | onehot[i];
          victim_found = |in_valid_n;
        end else begin
          vs = st_src;
          victim_found = in_valid_n[st_src];
        end
        if (!victim_found) begin
          st_kind = KIND_DROPPED;
          lost_n[st_src] = 1'b1;
        end else begin
          // S30: unless a is the tail, unlink it and append it as the tail.
          a = in_head_n[vs];
          st_kind = KIND_REPLACED;
          st_slot = a;
          st_victim = src_n[a];
          st_lost_tag = tag_n[a];
          lost_n[src_n[a]] = 1'b1;
          if (in_tail_n[vs] == a) in_valid_n[vs] = 1'b0;
          else in_head_n[vs] = in_next_n[a];
          if (a != tail_n) begin
            if (a == head_n) head_n = next_n[a];
            else next_n[prev_n[a]] = next_n[a];
            prev_n[next_n[a]] = prev_n[a];
            next_n[tail_n] = a;
            prev_n[a] = tail_n;
            tail_n = a;
          end
        end
      end
      if (st_kind == KIND_STORED || st_kind == KIND_REPLACED) begin
        // The group is a's, and a is the tail of the arriving source's INLis.
        src_n[a] = st_src;
        tag_n[a] = st_tag;
        empty_n[a] = st_empty;
        if (in_valid_n[st_src]) in_next_n[in_tail_n[st_src]] = a;
        else in_head_n[st_src] = a;
        in_tail_n[st_src] = a;
        in_valid_n[st_src] = 1'b1;
      end
    end

    if (lost_valid) lost_n[lost_src] = 1'b1;
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      head_q <= '0;
      tail_q <= '0;
      ftop_q <= '0;
      cnt_q <= '0;
      nfree_q <= ALL;
      nflight_q <= '0;
      in_valid_q <= '0;
      lost_q <= '0;
    end else begin
      head_q <= head_n;
      tail_q <= tail_n;
      ftop_q <= ftop_n;
      cnt_q <= cnt_n;
      nfree_q <= nfree_n;
      nflight_q <= nflight_n;
      in_valid_q <= in_valid_n;
      lost_q <= lost_n;
    end
    empty_q <= empty_n;
  end

  for (genvar i = 0; i < SLOTS; i++) begin : g_slot
    always_ff @(posedge clk) begin
      if (rst) begin
        next_q[i] <= PW'(i + 1);  // the free stack: 0, 1, .., SLOTS-1
        where_q[i] <= AT_FREE;
      end else begin
        next_q[i] <= next_n[i];
        where_q[i] <= where_n[i];
      end
      prev_q[i] <= prev_n[i];
      in_next_q[i] <= in_next_n[i];
      src_q[i] <= src_n[i];
      tag_q[i] <= tag_n[i];
    end
  end

  for (genvar i = 0; i < SOURCES; i++) begin : g_source
    always_ff @(posedge clk) begin
      in_head_q[i] <= in_head_n[i];
      in_tail_q[i] <= in_tail_n[i];
    end
  end

  assign head = head_q;
  assign tail = tail_q;
  assign count = cnt_q;
  assign free_count = nfree_q;
  assign flight_count = nflight_q;
  always_comb
    for (int i = 0; i < SLOTS; i++) begin
      slot_next[i*PW+:PW] = next_q[i];
      slot_src[i*SW+:SW] = src_q[i];
      slot_where[i*2+:2] = where_q[i];
    end
  assign source_lost = lost_q;

`ifndef SYNTHESIS
  // List integrity, checked on the registered state at every rising edge out of reset:
  // each slot in exactly one of free stack, OUTLis, in flight, and the counts match; OUTLis
  // walks from head to tail over cnt slots with prev the inverse of next; the free stack
  // walks over nfree free slots; each INLis is its source's OUTLis slots in OUTLis order.
  // Under stall, a store finds no free slot only to stall.
  always_ff @(posedge clk) begin
    if (!rst) begin
      automatic int n_out = 0, n_free = 0, n_flight = 0;
      automatic logic [PW-1:0] p = head_q, q;
      automatic logic [SLOTS-1:0] seen = '0;
      automatic logic [SOURCES-1:0] open = in_valid_q;
      automatic logic [PW-1:0] expect_next[SOURCES];
      for (int i = 0; i < SOURCES; i++) expect_next[i] = in_head_q[i];
      for (int i = 0; i < SLOTS; i++) begin
        if (where_q[i] == AT_OUTLIS) n_out++;
        if (where_q[i] == AT_FREE) n_free++;
        if (where_q[i] == AT_FLIGHT) n_flight++;
        assert (where_q[i] != 2'd3)
        else $error("slot %0d: no list", i);
      end
      assert (n_out == int'(cnt_q) && n_free == int'(nfree_q) && n_flight == int'(nflight_q))
      else
        $error("counts: OUTLis %0d/%0d free %0d/%0d flight %0d/%0d", n_out, cnt_q, n_free,
               nfree_q, n_flight, nflight_q);
      for (int i = 0; i < SLOTS; i++) begin
        if (i < int'(cnt_q)) begin
          assert (!seen[p] && where_q[p] == AT_OUTLIS)
          else $error("OUTLis position %0d: slot %0d seen twice or not in OUTLis", i, p);
          assert (i == 0 || prev_q[p] == q)
          else $error("OUTLis: prev of slot %0d is not %0d", p, q);
          assert (i + 1 != int'(cnt_q) || p == tail_q)
          else $error("OUTLis: the last slot %0d is not the tail %0d", p, tail_q);
          // INLis of p's source: p is the next slot expected there.
          assert (open[src_q[p]] && expect_next[src_q[p]] == p)
          else $error("INLis of source %0d does not hold slot %0d next", src_q[p], p);
          if (in_tail_q[src_q[p]] == p) open[src_q[p]] = 1'b0;
          else expect_next[src_q[p]] = in_next_q[p];
          seen[p] = 1'b1;
          q = p;
          p = next_q[p];
        end
      end
      assert (open == '0)
      else $error("an INLis holds slots outside OUTLis");
      p = ftop_q;
      for (int i = 0; i < SLOTS; i++) begin
        if (i < int'(nfree_q)) begin
          assert (!seen[p] && where_q[p] == AT_FREE)
          else $error("free stack position %0d: slot %0d seen twice or not free", i, p);
          seen[p] = 1'b1;
          p = next_q[p];
        end
      end
      assert (!st_valid || st_free != '0 || st_kind != KIND_STORED)
      else $error("a store into a full buffer");
      assert (!st_valid || st_free != '0 || cfg_replace || st_kind == KIND_STALL)
      else $error("stall: a store into a full buffer did not stall");
    end
  end
`endif
endmodule
