// vgpu-sim's entry point: the front end (vgpu_sim.cpp) with the platform's own blocks only.
// See README.md.
#include "platforms/cli.h"
#include "platforms/vgpu_sim.h"

int main(int argc, char** argv)
{
    return vgpu::platforms::vgpu_sim_main(argc, argv);
}

/// libsystemc refers to sc_main; vgpu-sim has its own main().
int sc_main(int, char**)
{
    return vgpu::platforms::exit_usage;
}
