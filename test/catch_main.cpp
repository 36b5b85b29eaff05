// Catch2 runner shared by every test executable; SystemC reports become test failures.
// See test/CMakeLists.txt.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <systemc>

namespace {
/// Every SystemC warning fails the running test; errors and fatals throw out of sc_start().
void report_handler(const sc_core::sc_report& rep, const sc_core::sc_actions& actions)
{
    using namespace sc_core;
    if (rep.get_severity() == SC_INFO) {
        sc_report_handler::default_handler(rep, actions & ~SC_DISPLAY);
        return;
    }
    if (rep.get_severity() == SC_WARNING) {
        FAIL_CHECK("SystemC warning: " << rep.get_msg_type() << ": " << rep.get_msg());
        return;
    }
    throw rep;
}
} // namespace

int main(int argc, char** argv)
{
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    sc_core::sc_report_handler::set_handler(report_handler);
    return Catch::Session().run(argc, argv);
}

/// libsystemc refers to sc_main; test executables never call it.
int sc_main(int, char**)
{
    return 1;
}
