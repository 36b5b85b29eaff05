// GDB remote serial protocol stub for the firmware CPU. See models/host_cpu/README.md.
#include "models/host_cpu/core/gdb_stub.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace vgpu::host_cpu {

namespace {
const char* const target_xml =
    "<?xml version=\"1.0\"?><!DOCTYPE target SYSTEM \"gdb-target.dtd\">"
    "<target version=\"1.0\"><architecture>riscv:rv32</architecture>"
    "<feature name=\"org.gnu.gdb.riscv.cpu\">"
    "<reg name=\"zero\" bitsize=\"32\" type=\"int\" regnum=\"0\"/>"
    "<reg name=\"ra\" bitsize=\"32\" type=\"code_ptr\"/>"
    "<reg name=\"sp\" bitsize=\"32\" type=\"data_ptr\"/>"
    "<reg name=\"gp\" bitsize=\"32\" type=\"data_ptr\"/>"
    "<reg name=\"tp\" bitsize=\"32\" type=\"data_ptr\"/>"
    "<reg name=\"t0\" bitsize=\"32\" type=\"int\"/><reg name=\"t1\" bitsize=\"32\" type=\"int\"/>"
    "<reg name=\"t2\" bitsize=\"32\" type=\"int\"/><reg name=\"fp\" bitsize=\"32\" "
    "type=\"data_ptr\"/>"
    "<reg name=\"s1\" bitsize=\"32\" type=\"int\"/><reg name=\"a0\" bitsize=\"32\" type=\"int\"/>"
    "<reg name=\"a1\" bitsize=\"32\" type=\"int\"/><reg name=\"a2\" bitsize=\"32\" type=\"int\"/>"
    "<reg name=\"a3\" bitsize=\"32\" type=\"int\"/><reg name=\"a4\" bitsize=\"32\" type=\"int\"/>"
    "<reg name=\"a5\" bitsize=\"32\" type=\"int\"/><reg name=\"a6\" bitsize=\"32\" type=\"int\"/>"
    "<reg name=\"a7\" bitsize=\"32\" type=\"int\"/><reg name=\"s2\" bitsize=\"32\" type=\"int\"/>"
    "<reg name=\"s3\" bitsize=\"32\" type=\"int\"/><reg name=\"s4\" bitsize=\"32\" type=\"int\"/>"
    "<reg name=\"s5\" bitsize=\"32\" type=\"int\"/><reg name=\"s6\" bitsize=\"32\" type=\"int\"/>"
    "<reg name=\"s7\" bitsize=\"32\" type=\"int\"/><reg name=\"s8\" bitsize=\"32\" type=\"int\"/>"
    "<reg name=\"s9\" bitsize=\"32\" type=\"int\"/><reg name=\"s10\" bitsize=\"32\" type=\"int\"/>"
    "<reg name=\"s11\" bitsize=\"32\" type=\"int\"/><reg name=\"t3\" bitsize=\"32\" type=\"int\"/>"
    "<reg name=\"t4\" bitsize=\"32\" type=\"int\"/><reg name=\"t5\" bitsize=\"32\" type=\"int\"/>"
    "<reg name=\"t6\" bitsize=\"32\" type=\"int\"/>"
    "<reg name=\"pc\" bitsize=\"32\" type=\"code_ptr\"/>"
    "</feature></target>";

std::string hex_le32(std::uint32_t v)
{
    char buf[9];
    std::snprintf(buf, sizeof buf, "%02x%02x%02x%02x", v & 0xff, v >> 8 & 0xff, v >> 16 & 0xff,
                  v >> 24);
    return buf;
}

int nibble(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

bool parse_hex(const std::string& s, std::uint64_t& v)
{
    v = 0;
    if (s.empty() || s.size() > 16)
        return false;
    for (char c : s) {
        const int n = nibble(c);
        if (n < 0)
            return false;
        v = v << 4 | static_cast<unsigned>(n);
    }
    return true;
}

std::uint32_t le32_of(const std::string& s, std::size_t at)
{
    std::uint32_t v = 0;
    for (unsigned b = 0; b < 4; ++b)
        v |= static_cast<std::uint32_t>(nibble(s[at + 2 * b]) << 4 | nibble(s[at + 2 * b + 1]))
             << (8 * b);
    return v;
}
} // namespace

gdb_stub::gdb_stub(iss& core, unsigned port) : m_core(core)
{
    m_listen = ::socket(AF_INET, SOCK_STREAM, 0);
    const int one = 1;
    ::setsockopt(m_listen, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK); // loopback only
    if (m_listen < 0 || ::bind(m_listen, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        ::listen(m_listen, 1) != 0) {
        const std::string why = std::strerror(errno);
        if (m_listen >= 0)
            ::close(m_listen);
        throw gdb_error("cannot listen for GDB on 127.0.0.1:" + std::to_string(port) + ": " + why);
    }
}

gdb_stub::~gdb_stub()
{
    if (m_fd >= 0)
        ::close(m_fd);
    if (m_listen >= 0)
        ::close(m_listen);
}

bool gdb_stub::accept(unsigned timeout_s)
{
    pollfd p{m_listen, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(timeout_s * 1000)) <= 0)
        return false;
    m_fd = ::accept(m_listen, nullptr, nullptr);
    if (m_fd >= 0) {
        const int one = 1;
        ::setsockopt(m_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    return m_fd >= 0;
}

bool gdb_stub::get_packet(std::string& out)
{
    // $body#cs; acknowledge with '+'. Bytes outside a packet (acks, ^C) are skipped.
    char c = 0;
    for (;;) {
        if (::read(m_fd, &c, 1) != 1)
            return false;
        if (c != '$')
            continue;
        out.clear();
        while (::read(m_fd, &c, 1) == 1 && c != '#')
            out += c;
        char cs[2];
        if (::read(m_fd, cs, 1) != 1 || ::read(m_fd, cs + 1, 1) != 1)
            return false;
        if (::write(m_fd, "+", 1) != 1)
            return false;
        return true;
    }
}

void gdb_stub::put_packet(const std::string& body)
{
    unsigned sum = 0;
    for (char c : body)
        sum += static_cast<unsigned char>(c);
    char tail[4];
    std::snprintf(tail, sizeof tail, "#%02x", sum & 0xff);
    const std::string p = "$" + body + tail;
    if (::write(m_fd, p.data(), p.size()) != static_cast<ssize_t>(p.size()))
        return;
    char ack = 0; // '+' (or '-': the packet is not resent, the debugger reports it)
    (void)!::read(m_fd, &ack, 1);
}

void gdb_stub::exited(unsigned status)
{
    if (m_fd < 0 || !m_resumed)
        return;
    char buf[8];
    std::snprintf(buf, sizeof buf, "W%02x", status & 0xff);
    put_packet(buf);
    m_resumed = false;
}

std::string gdb_stub::read_regs() const
{
    std::string s;
    for (unsigned i = 0; i < 32; ++i)
        s += hex_le32(m_core.reg(i));
    return s + hex_le32(m_core.pc());
}

gdb_stub::action gdb_stub::serve()
{
    if (m_fd < 0)
        return action::cont;
    action act = action::cont;
    if (m_resumed) { // the stop reply the debugger waits for since its c or s
        put_packet("S05");
        m_resumed = false;
    }
    std::string p;
    for (;;) {
        if (!get_packet(p))
            return action::detach; // the debugger went away: run on
        bool resume = false;
        const std::string reply = handle(p, resume, act);
        if (resume) {
            m_resumed = true;
            return act;
        }
        put_packet(reply);
        if (act == action::detach || act == action::kill)
            return act;
    }
}

std::string gdb_stub::handle(const std::string& p, bool& resume, action& act)
{
    if (p.empty())
        return "";
    std::uint64_t a = 0, n = 0;
    switch (p[0]) {
    case '?':
        return "S05";
    case 'g':
        return read_regs();
    case 'G':
        if (p.size() < 1 + 33 * 8)
            return "E01";
        for (unsigned i = 0; i < 32; ++i)
            m_core.set_reg(i, le32_of(p, 1 + 8 * i));
        m_core.set_pc(le32_of(p, 1 + 8 * 32));
        return "OK";
    case 'p':
        if (!parse_hex(p.substr(1), a))
            return "E01";
        if (a < 32)
            return hex_le32(m_core.reg(static_cast<unsigned>(a)));
        if (a == 32)
            return hex_le32(m_core.pc());
        return "E01";
    case 'P': {
        const auto eq = p.find('=');
        if (eq == std::string::npos || !parse_hex(p.substr(1, eq - 1), a) || p.size() < eq + 9)
            return "E01";
        const std::uint32_t v = le32_of(p, eq + 1);
        if (a < 32)
            m_core.set_reg(static_cast<unsigned>(a), v);
        else if (a == 32)
            m_core.set_pc(v);
        else
            return "E01";
        return "OK";
    }
    case 'm': {
        const auto comma = p.find(',');
        if (comma == std::string::npos || !parse_hex(p.substr(1, comma - 1), a) ||
            !parse_hex(p.substr(comma + 1), n) || n > 4096)
            return "E01";
        std::vector<std::uint8_t> buf(n);
        if (!m_core.peek(static_cast<std::uint32_t>(a), buf.data(), static_cast<std::uint32_t>(n)))
            return "E01";
        std::string s;
        char h[3];
        for (std::uint8_t b : buf) {
            std::snprintf(h, sizeof h, "%02x", b);
            s += h;
        }
        return s;
    }
    case 'M': {
        const auto comma = p.find(','), colon = p.find(':');
        if (comma == std::string::npos || colon == std::string::npos ||
            !parse_hex(p.substr(1, comma - 1), a) ||
            !parse_hex(p.substr(comma + 1, colon - comma - 1), n) || p.size() < colon + 1 + 2 * n)
            return "E01";
        std::vector<std::uint8_t> buf(n);
        for (std::size_t i = 0; i < n; ++i)
            buf[i] = static_cast<std::uint8_t>(nibble(p[colon + 1 + 2 * i]) << 4 |
                                               nibble(p[colon + 2 + 2 * i]));
        return m_core.poke(static_cast<std::uint32_t>(a), buf.data(), static_cast<std::uint32_t>(n))
                   ? "OK"
                   : "E01";
    }
    case 'Z':
    case 'z': {
        // Z0 (software) and Z1 (hardware) breakpoints are both address matches in the core.
        const auto c1 = p.find(','), c2 = p.find(',', c1 + 1);
        if (p.size() < 2 || (p[1] != '0' && p[1] != '1') || c1 == std::string::npos ||
            c2 == std::string::npos || !parse_hex(p.substr(c1 + 1, c2 - c1 - 1), a))
            return "";
        if (p[0] == 'Z')
            m_core.breakpoints().insert(static_cast<std::uint32_t>(a));
        else
            m_core.breakpoints().erase(static_cast<std::uint32_t>(a));
        return "OK";
    }
    case 'c':
        if (p.size() > 1 && parse_hex(p.substr(1), a))
            m_core.set_pc(static_cast<std::uint32_t>(a));
        act = action::cont;
        resume = true;
        return "";
    case 's':
        if (p.size() > 1 && parse_hex(p.substr(1), a))
            m_core.set_pc(static_cast<std::uint32_t>(a));
        act = action::step;
        resume = true;
        return "";
    case 'D':
        act = action::detach;
        m_core.breakpoints().clear();
        return "OK";
    case 'k':
        act = action::kill;
        resume = true;
        return "";
    case 'H':
        return "OK";
    case 'T':
        return "OK";
    case 'q':
        if (p.rfind("qSupported", 0) == 0)
            return "PacketSize=4000;qXfer:features:read+";
        if (p.rfind("qXfer:features:read:target.xml:", 0) == 0) {
            const std::string args = p.substr(32);
            const auto comma = args.find(',');
            if (comma == std::string::npos || !parse_hex(args.substr(0, comma), a) ||
                !parse_hex(args.substr(comma + 1), n))
                return "E01";
            const std::string xml = target_xml;
            if (a >= xml.size())
                return "l";
            const std::string part = xml.substr(a, n);
            return (a + part.size() >= xml.size() ? "l" : "m") + part;
        }
        if (p == "qAttached")
            return "1";
        if (p == "qC")
            return "QC1";
        if (p == "qfThreadInfo")
            return "m1";
        if (p == "qsThreadInfo")
            return "l";
        return "";
    default:
        return "";
    }
}

} // namespace vgpu::host_cpu
