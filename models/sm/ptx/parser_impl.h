// The PTX parser's internal state, shared by module.cpp, declarations.cpp, body.cpp and
// resolve.cpp (see each file's header). Not a public interface.
#pragma once

#include "models/sm/ptx/ast.h"
#include "models/sm/ptx/lexer.h"
#include "models/sm/ptx/parser.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace vgpu::ptx::detail {

/// Deepest nesting of braces and brackets in an operand or an initialiser.
constexpr int max_nesting = 16;

/// Counts one level of nesting while it lives.
struct nesting {
    int& depth;
    explicit nesting(int& d) : depth(d) { ++depth; }
    ~nesting() { --depth; }
    nesting(const nesting&) = delete;
    nesting& operator=(const nesting&) = delete;
};

/// Linkage directives before a declaration.
struct linkage {
    bool visible = false;
    bool is_extern = false;
    bool weak = false;
};

class parser {
public:
    parser(std::string_view text, const std::string& file) : m_text(text) { m_mod.file = file; }
    parse_result run();

private:
    // tokens
    const token& peek(std::size_t ahead = 0) const
    {
        const std::size_t i = m_pos + ahead;
        return i < m_toks.size() ? m_toks[i] : m_toks.back();
    }
    const token& next() { return m_pos < m_toks.size() - 1 ? m_toks[m_pos++] : m_toks.back(); }
    bool expect(char c, const char* what);
    void skip_statement();
    void skip_line(int line);
    bool integer(std::uint64_t& v, const char* what);
    bool small_integer(unsigned& v, const char* what, std::uint64_t max);
    static std::string describe(const token& t);

    // errors
    void error_at(int line, int col, const std::string& msg);
    void error(const token& t, const std::string& msg);

    // module (module.cpp)
    void directive_version();
    void directive_target();
    void directive_file();
    void skip_section();
    void top_level_declaration();

    // declarations (declarations.cpp)
    bool variable_declaration(std::vector<variable>& out, bool is_param, bool allow_init);
    bool initialiser(variable& v);
    bool init_value(variable& v);
    void function_declaration(const linkage& link);
    bool parameter_list(std::vector<variable>& out, bool is_entry);
    void performance_directives(function& f);

    // bodies (body.cpp)
    void function_body(function& f);
    void body_declaration(function& f);
    void directive_loc();
    void statement(function& f);
    bool parse_operand(operand& op);
    bool parse_address(operand& op);
    bool parse_call(instruction& ins);
    /// `( operand, ... )` at '(' into `out`; `after` names the list in the error for a missing ')'.
    bool parse_operand_list(std::vector<operand>& out, const char* after);

    // names (resolve.cpp)
    void resolve_all();
    void resolve_function(function& f);
    bool resolve_register(function& f, int scope, const std::string& name, position where,
                          int& decl, int& index);
    void resolve_operand(function& f, int scope, operand& op, const instruction& ins,
                         bool is_target);

    std::string_view m_text;
    std::vector<token> m_toks;
    std::size_t m_pos = 0;
    module m_mod;
    std::vector<std::string> m_errors;
    int m_scope = 0;    ///< current scope id while parsing a body
    int m_depth = 0;    ///< nesting of operands and initialisers being parsed
    int m_loc_file = 0; ///< last .loc
    int m_loc_line = 0;
    int m_loc_col = 0;
    int m_call_file = 0; ///< last .loc's inlined_at
    int m_call_line = 0;
    std::vector<std::pair<int, position>> m_loc_uses; ///< .loc file indices, checked at the end
    /// The function being resolved: declaration indices by name.
    std::map<std::string, std::vector<int>, std::less<>> m_decl_index;
};

} // namespace vgpu::ptx::detail
