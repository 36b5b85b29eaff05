// The link seam of a platform: every socket link is bound through bind_link(), which puts a
// protocol checker on the link when the platform checks the protocol. See docs/protocol-checker.md.
#pragma once

#include "tlm_bus/protocol_checker.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace vgpu::tlm_bus {

/// Binds the socket links of one platform and owns their protocol checkers. While a scope of
/// it lives (the platform's construction), bind_link() binds through it; without one, or when
/// it does not check, bind_link() is a plain bind() and the platform has no extra module.
class link_binder {
public:
    /// `check`: put a checker on every link bound through this binder, reporting as `mode`.
    explicit link_binder(bool check, report_mode mode = report_mode::error)
        : m_check(check), m_mode(mode)
    {
    }
    link_binder(const link_binder&) = delete;
    link_binder& operator=(const link_binder&) = delete;
    ~link_binder();

    bool checking() const { return m_check; } ///< links get checkers

    /// Binds `initiator -> checker -> target` (or `initiator -> target` when not checking).
    /// `from` and `to` name the two ends (a socket's path, or an interconnect's path and the
    /// port's name: "gpu.m0.c0.xbar.sm0_l1"); "" takes the socket's own path. The checker is a
    /// child of the module under construction, named `<from>_to_<to>` relative to that module,
    /// dots made underscores ("sm0_mem_to_sm0_tlb_req_in").
    template <class Init, class Tgt>
    void bind(Init& initiator, Tgt& target, const std::string& from = {},
              const std::string& to = {}, const protocol_checker_config& options = {})
    {
        if (!m_check) {
            initiator.bind(target);
            return;
        }
        protocol_checker& checker =
            add(from.empty() ? initiator.name() : from, to.empty() ? target.name() : to, options);
        bind_checked(initiator, checker, target);
    }

    /// The checkers, in binding order.
    const std::vector<std::unique_ptr<protocol_checker>>& checkers() const { return m_checkers; }
    /// Interface calls checked, all checkers.
    std::uint64_t calls() const;
    /// Violations seen, all checkers.
    std::uint64_t violations() const;
    /// The path of each initiator socket below the top-level objects that is bound without a
    /// checker (empty when every link is checked, or when not checking); call after
    /// elaboration. A checker's own `out` is not a link.
    std::vector<std::string> unchecked_links() const;

    /// Makes `binder` the one bind_link() uses while the scope lives (scopes nest).
    class scope {
    public:
        explicit scope(link_binder& binder);
        ~scope();
        scope(const scope&) = delete;
        scope& operator=(const scope&) = delete;

    private:
        link_binder* m_previous;
    };
    /// The binder of the innermost live scope, or null.
    static link_binder* active();

private:
    protocol_checker& add(const std::string& from, const std::string& to,
                          const protocol_checker_config& options);

    const bool m_check;
    const report_mode m_mode;
    std::vector<std::unique_ptr<protocol_checker>> m_checkers;
};

/// Binds `initiator` to `target` through the active link_binder (see link_binder::bind); a plain
/// bind() when there is none.
template <class Init, class Tgt>
void bind_link(Init& initiator, Tgt& target, const std::string& from = {},
               const std::string& to = {}, const protocol_checker_config& options = {})
{
    if (link_binder* binder = link_binder::active())
        binder->bind(initiator, target, from, to, options);
    else
        initiator.bind(target);
}

} // namespace vgpu::tlm_bus
