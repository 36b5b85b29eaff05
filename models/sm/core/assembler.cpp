// Text assembler for the SIMT instruction set: one pass over the lines, then branch labels.
// See docs/isa.md.
#include "models/sm/core/assembler.h"

#include "models/common/edit_distance.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace vgpu::sm {

namespace {

/// A piece of a line and its 0-based column.
struct token {
    std::string_view text;
    int col = 0;
};

bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

bool is_ident_start(char c)
{
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

bool is_ident(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

std::string upper(std::string_view s)
{
    std::string u(s);
    for (char& c : u)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return u;
}

token trim(token t)
{
    std::size_t b = 0;
    std::size_t e = t.text.size();
    while (b < e && is_space(t.text[b]))
        ++b;
    while (e > b && is_space(t.text[e - 1]))
        --e;
    return {t.text.substr(b, e - b), t.col + static_cast<int>(b)};
}

/// " (did you mean 'x'?)" for the closest candidate within two edits, or "".
std::string suggest(std::string_view word, const std::vector<std::string>& candidates)
{
    const std::string* best = nullptr;
    std::size_t best_d = 3;
    for (const std::string& c : candidates) {
        const std::size_t d = edit_distance(upper(word), upper(c));
        if (d < best_d && d < word.size()) {
            best = &c;
            best_d = d;
        }
    }
    return best ? " (did you mean '" + *best + "'?)" : "";
}

/// Parses a decimal or 0x-hex magnitude into mag (at most 0xffffffff).
bool parse_magnitude(std::string_view t, std::uint64_t& mag)
{
    unsigned base = 10;
    if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
        base = 16;
        t.remove_prefix(2);
    }
    if (t.empty())
        return false;
    mag = 0;
    for (char c : t) {
        unsigned d;
        if (is_digit(c))
            d = static_cast<unsigned>(c - '0');
        else if (base == 16 && std::isxdigit(static_cast<unsigned char>(c)))
            d = static_cast<unsigned>(std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
        else
            return false;
        mag = mag * base + d;
        if (mag > 0xffffffffull)
            return false;
    }
    return true;
}

/// Parses a signed integer in [lo, hi] (decimal or hex, optional sign).
bool parse_int(std::string_view t, std::int64_t lo, std::int64_t hi, std::int64_t& out)
{
    bool neg = false;
    if (!t.empty() && (t[0] == '-' || t[0] == '+')) {
        neg = t[0] == '-';
        t.remove_prefix(1);
    }
    std::uint64_t mag;
    if (!parse_magnitude(t, mag))
        return false;
    out = neg ? -static_cast<std::int64_t>(mag) : static_cast<std::int64_t>(mag);
    return out >= lo && out <= hi;
}

enum class imm_status { ok, bad, float_not_allowed };

/// Parses an immediate as interpreted by type into its 32 raw bits.
imm_status parse_imm(std::string_view t, imm_type type, std::uint32_t& out)
{
    std::string_view body = t;
    if (!body.empty() && (body[0] == '-' || body[0] == '+'))
        body.remove_prefix(1);
    const bool hex = body.size() > 1 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X');
    const bool decimal =
        !body.empty() && std::all_of(body.begin(), body.end(), [](char c) { return is_digit(c); });
    if (hex || decimal) {
        std::int64_t v;
        if (!parse_int(t, INT32_MIN, UINT32_MAX, v))
            return imm_status::bad;
        if (type == imm_type::fp32 && decimal) {
            const float f = static_cast<float>(v);
            std::memcpy(&out, &f, sizeof out);
        } else {
            out = static_cast<std::uint32_t>(v);
        }
        return imm_status::ok;
    }
    std::string s(t);
    if (s.size() > 1 && (s.back() == 'f' || s.back() == 'F'))
        s.pop_back();
    const bool float_chars = std::all_of(s.begin(), s.end(), [](char c) {
        return is_digit(c) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
    });
    if (s.empty() || !float_chars || !std::any_of(s.begin(), s.end(), is_digit))
        return imm_status::bad;
    errno = 0;
    char* end = nullptr;
    const float f = std::strtof(s.c_str(), &end);
    // glibc reports ERANGE for exact subnormals too: only overflow is an error.
    if (end != s.c_str() + s.size() || (errno == ERANGE && std::isinf(f)))
        return imm_status::bad;
    if (type == imm_type::integer)
        return imm_status::float_not_allowed;
    std::memcpy(&out, &f, sizeof out);
    return imm_status::ok;
}

/// Splits "a, b, c" at commas into trimmed tokens.
std::vector<token> split_operands(token rest)
{
    std::vector<token> out;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= rest.text.size(); ++i) {
        if (i == rest.text.size() || rest.text[i] == ',') {
            out.push_back(
                trim({rest.text.substr(start, i - start), rest.col + static_cast<int>(start)}));
            start = i + 1;
        }
    }
    return out;
}

/// Operand count of a syntax; cdl also accepts one more (the bulk data amount).
unsigned operand_count(syntax s)
{
    switch (s) {
    case syntax::none:
        return 0;
    case syntax::bra:
    case syntax::trace:
    case syntax::wsync:
        return 1;
    case syntax::r_s:
    case syntax::s2r:
    case syntax::ldp:
    case syntax::ld:
    case syntax::st:
    case syntax::r_sm:
        return 2;
    case syntax::r_ss:
    case syntax::setp:
    case syntax::cdl:
    case syntax::atom:
    case syntax::r_ssm:
    case syntax::setpm:
    case syntax::vote:
    case syntax::ballot:
        return 3;
    case syntax::r_sss:
    case syntax::sel:
    case syntax::r_sssm:
    case syntax::cas:
        return 4;
    }
    return 0;
}

/// A branch whose label is resolved after the last line.
struct fixup {
    std::size_t pc;
    std::string label;
    std::size_t line; ///< text offset of the line
    int col;
};

struct diagnostic {
    std::size_t at; ///< text offset
    std::string message;
};

class assembler {
public:
    assembler(const symbol_table& params, const source_origin& origin, unsigned nregs)
        : m_params(params), m_origin(origin), m_nregs(nregs)
    {
        for (unsigned i = 0; i < num_opcodes; ++i)
            m_mnemonics.emplace_back(info(static_cast<opcode>(i)).name);
        for (unsigned i = 0; i < num_special_regs; ++i)
            m_sregs.push_back(std::string("SR_") + name(static_cast<special_reg>(i)));
        for (const auto& p : params)
            m_param_names.push_back(p.first);
    }

    assembly_result run(std::string_view text)
    {
        std::size_t start = 0;
        while (start <= text.size()) {
            std::size_t end = text.find('\n', start);
            if (end == std::string_view::npos)
                end = text.size();
            m_line = start;
            m_line_starts.push_back(start);
            parse_line(text.substr(start, end - start));
            start = end + 1;
        }
        resolve_branches();
        check_end();
        std::stable_sort(m_diags.begin(), m_diags.end(),
                         [](const auto& a, const auto& b) { return a.at < b.at; });
        for (const diagnostic& d : m_diags) {
            const auto [line, col] = locate(d.at);
            m_result.errors.push_back(m_origin.file + ":" + std::to_string(line) + ":" +
                                      std::to_string(col) + ": error: " + d.message);
        }
        for (std::size_t at : m_inst_at)
            m_result.lines.push_back(locate(at).first);
        if (!m_result.ok()) {
            m_result.code.clear();
            m_result.lines.clear();
        }
        return std::move(m_result);
    }

private:
    /// File line and column of a text offset.
    std::pair<int, int> locate(std::size_t at) const
    {
        const auto& spans = m_origin.spans;
        if (spans.empty()) {
            const auto next = std::upper_bound(m_line_starts.begin(), m_line_starts.end(), at);
            const auto k = static_cast<std::size_t>(next - m_line_starts.begin()) - 1;
            return {m_origin.line + static_cast<int>(k),
                    m_origin.col + static_cast<int>(at - m_line_starts[k])};
        }
        auto s = std::upper_bound(spans.begin(), spans.end(), at,
                                  [](std::size_t a, const source_span& x) { return a < x.at; });
        if (s != spans.begin())
            --s;
        return {s->line, s->fixed ? s->col : s->col + static_cast<int>(at - s->at)};
    }

    void error(int col, std::string message)
    {
        m_diags.push_back({m_line + static_cast<std::size_t>(col), std::move(message)});
    }

    void parse_line(std::string_view text)
    {
        const std::size_t hash = text.find('#');
        const std::size_t slashes = text.find("//");
        text = text.substr(0, std::min(hash, slashes));
        std::size_t i = 0;
        auto skip_space = [&] {
            while (i < text.size() && is_space(text[i]))
                ++i;
        };
        skip_space();
        // Labels: "name:" (several may precede one instruction).
        for (;;) {
            if (i >= text.size() || !is_ident_start(text[i]))
                break;
            std::size_t j = i;
            while (j < text.size() && is_ident(text[j]))
                ++j;
            std::size_t colon = j;
            while (colon < text.size() && is_space(text[colon]))
                ++colon;
            if (colon >= text.size() || text[colon] != ':')
                break;
            define_label(text.substr(i, j - i), static_cast<int>(i));
            i = colon + 1;
            skip_space();
        }
        if (i >= text.size())
            return;
        instruction inst;
        if (text[i] == '@') {
            const std::size_t b = i;
            while (i < text.size() && !is_space(text[i]))
                ++i;
            token g{text.substr(b + 1, i - b - 1), static_cast<int>(b + 1)};
            if (!g.text.empty() && g.text[0] == '!') {
                inst.guard_neg = true;
                g.text.remove_prefix(1);
                ++g.col;
            }
            parse_pred(g, inst.guard);
            skip_space();
            if (i >= text.size()) {
                error(static_cast<int>(b), "expected an instruction after the guard");
                return;
            }
        }
        const std::size_t b = i;
        while (i < text.size() && !is_space(text[i]))
            ++i;
        const token mnemonic{text.substr(b, i - b), static_cast<int>(b)};
        const token rest{text.substr(i), static_cast<int>(i)};
        m_inst_at.push_back(m_line + static_cast<std::size_t>(mnemonic.col));
        parse_instruction(inst, mnemonic, trim(rest));
        if (pair_mask(inst) != 0) // fp64 and 64-bit integers: Rn:Rn+1 must both exist
            if (auto why = check(inst, m_nregs); why && why->rfind("register pair", 0) == 0)
                error(mnemonic.col, *why);
        m_result.code.push_back(inst);
    }

    void define_label(std::string_view label, int col)
    {
        const auto it = m_label_lines.find(label);
        if (it != m_label_lines.end()) {
            error(col, "duplicate label '" + std::string(label) + "' (first defined on line " +
                           std::to_string(locate(it->second).first) + ")");
            return;
        }
        m_label_lines.emplace(std::string(label), m_line);
        m_result.labels.emplace(std::string(label),
                                static_cast<std::uint32_t>(m_result.code.size()));
    }

    void parse_instruction(instruction& inst, token mnemonic, token rest)
    {
        const std::string word = upper(mnemonic.text);
        const std::size_t dot = word.find('.');
        const std::string base = word.substr(0, dot);
        const std::string suffix = dot == std::string::npos ? "" : word.substr(dot + 1);
        const auto it = std::find(m_mnemonics.begin(), m_mnemonics.end(), base);
        if (it == m_mnemonics.end()) {
            error(mnemonic.col, "unknown instruction '" + std::string(mnemonic.text) + "'" +
                                    suggest(base, m_mnemonics));
            return;
        }
        inst.op = static_cast<opcode>(it - m_mnemonics.begin());
        const opcode_info& oi = info(inst.op);
        if (has_mod(inst.op)) {
            const auto m = parse_mod(inst.op, suffix);
            if (!m) {
                error(mnemonic.col,
                      (suffix.empty()
                           ? base + " needs a modifier"
                           : "unknown modifier '." + std::string(mnemonic.text.substr(dot + 1)) +
                                 "' on " + base) +
                          " (see docs/isa.md)");
                return;
            }
            inst.mod = *m;
        } else if (oi.form == syntax::setp) {
            if (!parse_cond(inst, suffix, mnemonic))
                return;
        } else if (oi.form == syntax::atom || oi.form == syntax::cas || oi.form == syntax::ld ||
                   oi.form == syntax::st) {
            if (!parse_memory_suffixes(inst, suffix, mnemonic, dot))
                return;
        } else if (dot != std::string::npos) {
            error(mnemonic.col, "unexpected suffix '." +
                                    std::string(mnemonic.text.substr(dot + 1)) + "' on " + base);
            return;
        }
        std::vector<token> ops;
        if (!rest.text.empty())
            ops = split_operands(rest);
        const unsigned want = operand_count(oi.form);
        const bool cdl_bulk = oi.form == syntax::cdl && ops.size() == want + 1;
        if (ops.size() != want && !cdl_bulk) {
            error(mnemonic.col, "wrong operand count for " + base + " (expected " +
                                    std::to_string(want) + (oi.form == syntax::cdl ? " or 4" : "") +
                                    ", got " + std::to_string(ops.size()) + ")");
            return;
        }
        for (const token& t : ops) {
            if (t.text.empty()) {
                error(t.col, "missing operand");
                return;
            }
        }
        parse_operands(inst, oi, ops);
    }

    /// The suffixes of LD/ST/ATOM/CAS: a width (LD: U8 S8 U16 S16, ST: U8 U16), an atomic
    /// operation (ATOM: required, first) and the space (SHARED), in that order.
    bool parse_memory_suffixes(instruction& inst, const std::string& suffix, token mnemonic,
                               std::size_t dot)
    {
        const syntax form = info(inst.op).form;
        const char* base = info(inst.op).name;
        std::vector<std::string> parts;
        for (std::size_t at = 0; dot != std::string::npos && at <= suffix.size();) {
            const std::size_t next = suffix.find('.', at);
            parts.push_back(suffix.substr(at, next == std::string::npos ? next : next - at));
            if (next == std::string::npos)
                break;
            at = next + 1;
        }
        std::size_t i = 0;
        if (form == syntax::atom) {
            std::string ops;
            for (unsigned k = 0; k < num_atom_ops; ++k)
                ops += std::string(k ? ", " : "") + name(static_cast<atom_op>(k));
            if (parts.empty()) {
                error(mnemonic.col,
                      "ATOM needs an operation suffix (ATOM.ADD, expected one of " + ops + ")");
                return false;
            }
            unsigned k = 0;
            while (k < num_atom_ops && parts[0] != name(static_cast<atom_op>(k)))
                ++k;
            if (k == num_atom_ops) {
                error(mnemonic.col,
                      "unknown atomic operation '" + parts[0] + "' (expected " + ops + ")");
                return false;
            }
            inst.aop = static_cast<atom_op>(k);
            ++i;
        }
        if (i < parts.size() && (form == syntax::atom || form == syntax::cas) &&
            parts[i] == name(mem_width::b64)) {
            if (!atom_has64(inst.aop)) {
                error(mnemonic.col, std::string("ATOM.") + name(inst.aop) + " has no .B64 form");
                return false;
            }
            inst.width = mem_width::b64; // register pairs (docs/isa.md, "Atomics")
            ++i;
        }
        if (i < parts.size() && (form == syntax::ld || form == syntax::st)) {
            for (unsigned w = 1; w < num_mem_widths; ++w) {
                const auto width = static_cast<mem_width>(w);
                if (width == mem_width::b64)
                    continue; // ATOM/CAS only
                const bool signed_w = width == mem_width::s8 || width == mem_width::s16;
                if (parts[i] == name(width) && !(form == syntax::st && signed_w)) {
                    inst.width = width;
                    ++i;
                    break;
                }
            }
        }
        if (i < parts.size() && parts[i] == name(mem_space::shared)) {
            inst.space = mem_space::shared;
            ++i;
        } else if (i < parts.size() && parts[i] == name(mem_space::local)) {
            inst.space = mem_space::local; // global memory, counted as local (docs/isa.md)
            ++i;
        }
        if (i < parts.size()) {
            error(mnemonic.col, "unexpected suffix '." + parts[i] + "' on " + base + " (expected " +
                                    (form == syntax::ld   ? "[.U8|.S8|.U16|.S16][.SHARED]"
                                     : form == syntax::st ? "[.U8|.U16][.SHARED]"
                                                          : "[.B64][.SHARED]") +
                                    ")");
            return false;
        }
        return true;
    }

    bool parse_cond(instruction& inst, const std::string& suffix, token mnemonic)
    {
        const char* base = info(inst.op).name;
        if (suffix.empty()) {
            error(mnemonic.col, std::string(base) + " needs a comparison suffix (" + base +
                                    ".EQ, .NE, .LT, .LE, .GT or .GE)");
            return false;
        }
        for (unsigned c = 0; c < num_cmp_ops; ++c) {
            if (suffix == name(static_cast<cmp_op>(c))) {
                inst.cond = static_cast<cmp_op>(c);
                return true;
            }
        }
        const std::size_t len = std::strlen(base);
        error(mnemonic.col + static_cast<int>(len) + 1,
              "unknown comparison '" + std::string(mnemonic.text.substr(len + 1)) + "' for " +
                  base + " (expected EQ, NE, LT, LE, GT or GE)");
        return false;
    }

    void parse_operands(instruction& inst, const opcode_info& oi, const std::vector<token>& ops)
    {
        const char* op = oi.name;
        switch (oi.form) {
        case syntax::none:
            break;
        case syntax::r_s:
        case syntax::r_ss:
        case syntax::r_sss:
        case syntax::r_sm:
        case syntax::r_ssm:
        case syntax::r_sssm:
            parse_dst(ops[0], inst.dst);
            for (std::size_t i = 1; i < ops.size(); ++i)
                parse_source(ops[i], oi.imm, op, inst.src[i - 1]);
            break;
        case syntax::s2r:
            parse_dst(ops[0], inst.dst);
            parse_sreg(ops[1], inst.sreg);
            break;
        case syntax::ldp:
            parse_dst(ops[0], inst.dst);
            parse_param(ops[1], inst.src[0]);
            break;
        case syntax::setp:
        case syntax::setpm:
            parse_pred(ops[0], inst.dst);
            parse_source(ops[1], oi.imm, op, inst.src[0]);
            parse_source(ops[2], oi.imm, op, inst.src[1]);
            break;
        case syntax::vote:
        case syntax::ballot: {
            if (oi.form == syntax::vote)
                parse_pred(ops[0], inst.dst);
            else
                parse_dst(ops[0], inst.dst);
            std::uint8_t p = pred_true;
            parse_pred(ops[1], p);
            inst.src[0] = pred(p);
            parse_source(ops[2], oi.imm, op, inst.src[1]);
            break;
        }
        case syntax::wsync:
            parse_source(ops[0], oi.imm, op, inst.src[0]);
            break;
        case syntax::sel: {
            parse_dst(ops[0], inst.dst);
            parse_source(ops[1], oi.imm, op, inst.src[0]);
            parse_source(ops[2], oi.imm, op, inst.src[1]);
            std::uint8_t p = pred_true;
            parse_pred(ops[3], p);
            inst.src[2] = pred(p);
            break;
        }
        case syntax::bra:
            parse_target(ops[0], inst.src[0]);
            break;
        case syntax::ld:
            parse_dst(ops[0], inst.dst);
            parse_address(ops[1], inst);
            break;
        case syntax::st: {
            parse_address(ops[0], inst);
            std::uint8_t r = reg_zero;
            parse_dst(ops[1], r);
            inst.src[1] = reg(r);
            break;
        }
        case syntax::atom: {
            parse_dst(ops[0], inst.dst);
            parse_address(ops[1], inst);
            std::uint8_t r = reg_zero;
            parse_dst(ops[2], r);
            inst.src[1] = reg(r);
            break;
        }
        case syntax::cas: {
            parse_dst(ops[0], inst.dst);
            parse_address(ops[1], inst);
            if (inst.offset != 0)
                error(ops[1].col, "CAS takes no address offset (expected [Rn])");
            inst.offset = 0;
            for (unsigned k = 1; k < 3; ++k) {
                std::uint8_t r = reg_zero;
                parse_dst(ops[k + 1], r);
                inst.src[k] = reg(r);
            }
            break;
        }
        case syntax::trace:
            parse_index(ops[0], inst.src[0]);
            break;
        case syntax::cdl: {
            const bool dst_ok = parse_dst(ops[0], inst.dst);
            parse_source(ops[1], imm_type::integer, op, inst.src[0]);
            parse_cbv(ops[2], inst.src[1]);
            if (ops.size() == 4 && parse_index(ops[3], inst.src[2])) {
                const std::uint64_t n = inst.src[2].value;
                const std::uint64_t last = inst.dst + (n + 31) / 32 - 1;
                if (n == 0)
                    error(ops[3].col, "CDL data amount must be at least 1 dword");
                else if (dst_ok && inst.dst == reg_zero)
                    error(ops[0].col, "a bulk CDL needs a destination register, not RZ");
                else if (dst_ok && last >= m_nregs)
                    error(ops[0].col, "CDL destination R" + std::to_string(inst.dst) + "..R" +
                                          std::to_string(last) + " past the register file (R0..R" +
                                          std::to_string(m_nregs - 1) + ")");
            }
            break;
        }
        }
    }

    /// Register name "Rn" or "RZ" (case-insensitive): true if t looks like one.
    static bool looks_like_reg(std::string_view t)
    {
        if (t.size() < 2 || (t[0] != 'R' && t[0] != 'r'))
            return false;
        if (t.size() == 2 && (t[1] == 'Z' || t[1] == 'z'))
            return true;
        return std::all_of(t.begin() + 1, t.end(), [](char c) { return is_digit(c); });
    }

    bool parse_reg(token t, std::uint8_t& out)
    {
        if (t.text.size() == 2 && (t.text[1] == 'Z' || t.text[1] == 'z')) {
            out = reg_zero;
            return true;
        }
        std::uint64_t n = 0;
        for (char c : t.text.substr(1))
            n = std::min<std::uint64_t>(n * 10 + static_cast<unsigned>(c - '0'), 1u << 20);
        if (n >= m_nregs) {
            error(t.col, "register " + std::string(t.text) + " out of range (R0..R" +
                             std::to_string(m_nregs - 1) + ")");
            return false;
        }
        out = static_cast<std::uint8_t>(n);
        return true;
    }

    bool parse_dst(token t, std::uint8_t& out)
    {
        if (!looks_like_reg(t.text)) {
            error(t.col, "expected a register, got '" + std::string(t.text) + "'");
            return false;
        }
        return parse_reg(t, out);
    }

    bool parse_source(token t, imm_type type, const char* op, operand& out)
    {
        if (looks_like_reg(t.text)) {
            std::uint8_t r;
            if (!parse_reg(t, r))
                return false;
            out = reg(r);
            return true;
        }
        const char c = t.text[0];
        if (!is_digit(c) && c != '-' && c != '+' && c != '.') {
            error(t.col, "expected a register or an immediate, got '" + std::string(t.text) + "'");
            return false;
        }
        std::uint32_t v = 0;
        switch (parse_imm(t.text, type, v)) {
        case imm_status::ok:
            out = imm(v);
            return true;
        case imm_status::bad:
            error(t.col, "bad immediate '" + std::string(t.text) + "'");
            return false;
        case imm_status::float_not_allowed:
            error(t.col,
                  "floating-point immediate '" + std::string(t.text) + "' not allowed for " + op);
            return false;
        }
        return false;
    }

    bool parse_pred(token t, std::uint8_t& out)
    {
        const std::string u = upper(t.text);
        if (u == "PT") {
            out = pred_true;
            return true;
        }
        if (u.size() == 2 && u[0] == 'P' && u[1] >= '0' && u[1] < '0' + int(num_predicates)) {
            out = static_cast<std::uint8_t>(u[1] - '0');
            return true;
        }
        error(t.col, "bad predicate '" + std::string(t.text) + "' (expected P0..P7 or PT)");
        return false;
    }

    bool parse_sreg(token t, special_reg& out)
    {
        const std::string u = upper(t.text);
        for (unsigned i = 0; i < num_special_regs; ++i) {
            if (u == m_sregs[i]) {
                out = static_cast<special_reg>(i);
                return true;
            }
        }
        error(t.col,
              "unknown special register '" + std::string(t.text) + "'" + suggest(t.text, m_sregs));
        return false;
    }

    /// A non-negative 32-bit number: parameter index, TRACE code, CBV index, data amount.
    bool parse_index(token t, operand& out)
    {
        std::int64_t v;
        if (!parse_int(t.text, 0, UINT32_MAX, v)) {
            error(t.col, "bad immediate '" + std::string(t.text) + "'");
            return false;
        }
        out = imm(static_cast<std::uint32_t>(v));
        return true;
    }

    bool parse_param(token t, operand& out)
    {
        if (is_digit(t.text[0]))
            return parse_index(t, out);
        const auto it = m_params.find(t.text);
        if (it == m_params.end()) {
            error(t.col, "undefined parameter '" + std::string(t.text) + "'" +
                             suggest(t.text, m_param_names));
            return false;
        }
        out = imm(it->second);
        return true;
    }

    bool parse_target(token t, operand& out)
    {
        if (is_digit(t.text[0])) {
            if (!parse_index(t, out))
                return false;
            m_fixups.push_back({m_result.code.size(), "", m_line, t.col});
            return true;
        }
        if (!is_ident_start(t.text[0]) ||
            !std::all_of(t.text.begin(), t.text.end(), [](char c) { return is_ident(c); })) {
            error(t.col, "bad branch target '" + std::string(t.text) + "'");
            return false;
        }
        m_fixups.push_back({m_result.code.size(), std::string(t.text), m_line, t.col});
        return true;
    }

    bool parse_address(token t, instruction& inst)
    {
        const std::string bad = "bad memory operand '" + std::string(t.text) +
                                "' (expected [Rn], [Rn + offset], [Rn - offset] or [address])";
        if (t.text.size() < 2 || t.text.front() != '[' || t.text.back() != ']') {
            error(t.col, bad);
            return false;
        }
        const token inner = trim({t.text.substr(1, t.text.size() - 2), t.col + 1});
        std::string_view s = inner.text;
        if (!s.empty() && is_digit(s[0])) {
            std::int64_t v;
            if (!parse_int(s, 0, UINT32_MAX, v)) {
                error(t.col, bad);
                return false;
            }
            inst.src[0] = reg(reg_zero);
            inst.offset = static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
            return true;
        }
        std::size_t n = 0;
        while (n < s.size() && std::isalnum(static_cast<unsigned char>(s[n])))
            ++n;
        const token r{s.substr(0, n), inner.col};
        if (!looks_like_reg(r.text)) {
            error(t.col, bad);
            return false;
        }
        std::uint8_t ra;
        if (!parse_reg(r, ra))
            return false;
        inst.src[0] = reg(ra);
        const token off = trim({s.substr(n), inner.col + static_cast<int>(n)});
        if (off.text.empty())
            return true;
        std::int64_t v;
        if ((off.text[0] != '+' && off.text[0] != '-') ||
            !parse_int(trim({off.text.substr(1), 0}).text, 0, UINT32_MAX, v)) {
            error(t.col, bad);
            return false;
        }
        if (off.text[0] == '-')
            v = -v;
        if (v < INT32_MIN || v > INT32_MAX) {
            error(off.col, "memory offset " + std::string(off.text) + " out of range");
            return false;
        }
        inst.offset = static_cast<std::int32_t>(v);
        return true;
    }

    bool parse_cbv(token t, operand& out)
    {
        const std::string u = upper(t.text);
        if (u.size() < 6 || u.compare(0, 4, "CBV[") != 0 || u.back() != ']') {
            error(t.col, "expected cbv[index], got '" + std::string(t.text) + "'");
            return false;
        }
        const token idx = trim({t.text.substr(4, t.text.size() - 5), t.col + 4});
        return parse_index(idx, out);
    }

    void resolve_branches()
    {
        const std::size_t size = m_result.code.size();
        for (const fixup& f : m_fixups) {
            m_line = f.line;
            operand& target = m_result.code[f.pc].src[0];
            if (f.label.empty()) {
                if (target.value >= size)
                    error(f.col, "branch target " + std::to_string(target.value) +
                                     " outside the program (0.." + std::to_string(size - 1) + ")");
                continue;
            }
            const auto it = m_result.labels.find(f.label);
            if (it == m_result.labels.end()) {
                std::vector<std::string> names;
                for (const auto& l : m_result.labels)
                    names.push_back(l.first);
                error(f.col, "undefined label '" + f.label + "'" + suggest(f.label, names));
            } else if (it->second >= size) {
                error(f.col, "label '" + f.label + "' is past the last instruction");
            } else {
                target = imm(it->second);
            }
        }
    }

    void check_end()
    {
        if (m_result.code.empty()) {
            m_line = 0;
            error(0, "program is empty");
            return;
        }
        const instruction& last = m_result.code.back();
        const bool unconditional = last.guard == pred_true && !last.guard_neg;
        if (!unconditional || (last.op != opcode::EXIT && last.op != opcode::BRA)) {
            m_line = m_inst_at.back();
            error(0, "program must end with an unconditional EXIT or BRA");
        }
    }

    const symbol_table& m_params;
    const source_origin& m_origin;
    const unsigned m_nregs;
    std::vector<std::string> m_mnemonics;
    std::vector<std::string> m_sregs;
    std::vector<std::string> m_param_names;
    std::map<std::string, std::size_t, std::less<>> m_label_lines; ///< text offset of each
    std::vector<std::size_t> m_inst_at;     ///< text offset of each instruction's mnemonic
    std::vector<std::size_t> m_line_starts; ///< text offset of each line
    std::vector<fixup> m_fixups;
    std::vector<diagnostic> m_diags;
    assembly_result m_result;
    std::size_t m_line = 0; ///< text offset of the line being read
};

} // namespace

assembly_result assemble(std::string_view text, const symbol_table& params,
                         const source_origin& origin, unsigned nregs)
{
    if (nregs == 0 || nregs > max_registers)
        throw std::invalid_argument("assemble: register count must be 1.." +
                                    std::to_string(max_registers));
    return assembler(params, origin, nregs).run(text);
}

} // namespace vgpu::sm
