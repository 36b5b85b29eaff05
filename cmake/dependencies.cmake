# Finds the Debian packages vgpu builds on; a missing one stops the build naming the package.
find_package(PkgConfig)
if(NOT PKG_CONFIG_FOUND)
  message(FATAL_ERROR "pkg-config not found: install the Debian package 'pkg-config' (scripts/test does this)")
endif()

pkg_check_modules(SYSTEMC IMPORTED_TARGET systemc)
if(NOT SYSTEMC_FOUND)
  message(FATAL_ERROR "SystemC not found: install the Debian package 'libsystemc-dev'")
endif()

# Firmware co-simulation (host.kind riscv): the instruction-set simulator.
pkg_check_modules(UNICORN unicorn)
if(NOT UNICORN_FOUND)
  message(FATAL_ERROR "Unicorn not found: install the Debian package 'libunicorn-dev'")
endif()

find_package(yaml-cpp QUIET)
if(NOT yaml-cpp_FOUND)
  message(FATAL_ERROR "yaml-cpp not found: install the Debian package 'libyaml-cpp-dev'")
endif()

find_package(Boost 1.74 QUIET)
if(NOT Boost_FOUND)
  message(FATAL_ERROR "Boost not found: install the Debian package 'libboost-dev'")
endif()

find_package(nlohmann_json 3 QUIET)
if(NOT nlohmann_json_FOUND)
  message(FATAL_ERROR "nlohmann-json not found: install the Debian package 'nlohmann-json3-dev'")
endif()

find_package(CLI11 QUIET)
if(NOT CLI11_FOUND)
  message(FATAL_ERROR "CLI11 not found: install the Debian package 'libcli11-dev'")
endif()

find_package(Catch2 2 QUIET)
if(NOT Catch2_FOUND)
  message(FATAL_ERROR "Catch2 v2 not found: install the Debian package 'catch2'")
endif()
include(Catch)

# vgpu-sim's allocator: tcmalloc (gperftools) serves the run's many small allocations
# (payloads, timeline entries, containers) from per-thread caches; about 6 % of the host time
# of the V100 platform's kernels (docs/architecture.md, "Host speed"). Not with the sanitizers
# or libFuzzer, which bring their own allocator.
option(VGPU_TCMALLOC "Link vgpu-sim with tcmalloc (Debian package libgoogle-perftools-dev)" ON)
if(VGPU_TCMALLOC AND NOT VGPU_SANITIZE AND NOT VGPU_FUZZ)
  pkg_check_modules(TCMALLOC IMPORTED_TARGET libtcmalloc_minimal)
  if(NOT TCMALLOC_FOUND)
    message(FATAL_ERROR "tcmalloc not found: install the Debian package 'libgoogle-perftools-dev' "
                        "(or configure with -DVGPU_TCMALLOC=OFF)")
  endif()
endif()

# RTL checked against the model (models/noc/rtl, models/shader_trace/rtl): Verilator and its
# CMake function verilate(). Without it only the RTL targets and their tests are left out, with
# this notice; scripts/test installs it. Not in the libFuzzer build, nor in the sanitizer build:
# the RTL testbenches compare generated code against the cores cycle by cycle, and the Release
# run does that; compiling the generated models a second time under the sanitizers would cost
# CI minutes for code that is not ours.
set(VGPU_RTL OFF)
if(NOT VGPU_FUZZ AND NOT VGPU_SANITIZE)
  find_package(verilator 5 QUIET HINTS /usr/share/verilator $ENV{VERILATOR_ROOT})
  if(verilator_FOUND)
    set(VGPU_RTL ON)
    # VGPU_RTL_COVERAGE (off by default; scripts/test turns it on in the build folders it
    # configures, so CI reports it): every RTL block verilated with --coverage (line,
    # toggle, assertion); the testbenches write <block>.<seed>.dat for scripts/coverage.
    option(VGPU_RTL_COVERAGE "Verilate the RTL blocks with code coverage" OFF)
    set(VGPU_RTL_COVERAGE_ARG "")
    if(VGPU_RTL_COVERAGE)
      set(VGPU_RTL_COVERAGE_ARG COVERAGE)
    endif()
    message(STATUS "vgpu: RTL blocks verilated with verilator ${verilator_VERSION}")
  else()
    message(NOTICE "vgpu: verilator not found: the RTL blocks and their tests are left out "
                   "(install the Debian package 'verilator'; scripts/test does this)")
  endif()
endif()
