// PTX lexer: text to tokens with 1-based positions (used by the parser). See docs/cuda.md.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vgpu::ptx {

/// A PTX token.
struct token {
    enum class kind : std::uint8_t {
        ident,     ///< identifier, possibly starting with % or $ ("%r1", "_Z3foo", "LBB0_2")
        directive, ///< ".name" (text without the dot; may hold "::", as "shared::cta")
        integer,   ///< integer literal (value in `value`)
        f32,       ///< 0fXXXXXXXX (bits in `value`)
        f64,       ///< 0dXXXXXXXXXXXXXXXX or a decimal float (bits in `value`)
        string,    ///< "..." (text without the quotes)
        punct,     ///< one character of , ; : { } [ ] ( ) < > + - ! @ = | _
        end        ///< end of input
    };
    kind k = kind::end;
    std::string_view text{};  ///< as written (without dot or quotes for directive and string)
    std::uint64_t value = 0;  ///< integer value or float bits
    bool is_unsigned = false; ///< integer with a U suffix
    int line = 0;
    int col = 0;
    bool is(char c) const { return k == kind::punct && text.size() == 1 && text[0] == c; }
};

/// Output of lex().
struct lex_result {
    std::vector<token> tokens{}; ///< ends with an `end` token
    std::string error{};         ///< "" or the first lexical error's message
    int error_line = 0;          ///< its position
    int error_col = 0;
};

/// Splits text into tokens, skipping whitespace and comments; stops at the first bad character.
lex_result lex(std::string_view text);

} // namespace vgpu::ptx
