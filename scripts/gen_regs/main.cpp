// vgpu-gen-regs: writes (or checks) every file the register descriptions generate. Run it
// through scripts/gen-regs; ctest runs it with --check. See docs/registers.md.
#include "scripts/gen_regs/emit.h"

#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

namespace {

bool read(const std::string& path, std::string& text)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return false;
    std::ostringstream s;
    s << in.rdbuf();
    text = s.str();
    return true;
}

/// First line (1-based) where a and b differ.
std::size_t first_difference(const std::string& a, const std::string& b)
{
    std::size_t line = 1;
    for (std::size_t i = 0; i < a.size() && i < b.size() && a[i] == b[i]; ++i)
        line += a[i] == '\n';
    return line;
}

int usage()
{
    std::cerr << "usage: vgpu-gen-regs [--root DIR] [--map FILE] [--check | --out DIR]\n"
                 "  --root DIR  the repository (default .)\n"
                 "  --map FILE  the MMIO map, relative to the root (default "
                 "platforms/mmio_map.yaml)\n"
                 "  --check     write nothing; exit 1 naming each stale generated file\n"
                 "  --out DIR   write the generated files under DIR (default: the root)\n";
    return 2;
}

} // namespace

int main(int argc, char** argv)
{
    std::string root = ".", map = "platforms/mmio_map.yaml", out;
    bool check = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--check")
            check = true;
        else if ((a == "--root" || a == "--map" || a == "--out") && i + 1 < argc)
            (a == "--root" ? root : a == "--map" ? map : out) = argv[++i];
        else
            return usage();
    }
    if (out.empty())
        out = root;
    try {
        const vgpu::gen_regs::mmio_map m = vgpu::gen_regs::read_map(root, map);
        std::string page;
        if (!read(root + "/" + m.docs, page)) {
            std::cerr << "vgpu-gen-regs: cannot read " << root << "/" << m.docs << "\n";
            return 1;
        }
        int stale = 0;
        for (const auto& [path, text] : vgpu::gen_regs::generate(m, page)) {
            std::string now;
            const bool exists = read((check ? root : out) + "/" + path, now);
            if (exists && now == text)
                continue;
            if (check) {
                ++stale;
                std::cerr << "stale: " << path
                          << (exists ? " differs from its description at line " +
                                           std::to_string(first_difference(now, text))
                                     : std::string(" is missing"))
                          << "; regenerate with scripts/gen-regs\n";
                continue;
            }
            std::ofstream o(out + "/" + path, std::ios::binary);
            o << text;
            if (!o) {
                std::cerr << "vgpu-gen-regs: cannot write " << out << "/" << path << "\n";
                return 1;
            }
            std::cout << "wrote " << path << "\n";
        }
        return stale ? 1 : 0;
    } catch (const std::exception& e) {
        std::cerr << "vgpu-gen-regs: " << e.what() << "\n";
        return 1;
    }
}
