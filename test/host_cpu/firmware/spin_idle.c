/* Benchmark firmware: spin.c with the GPU idle. */
#define SPIN_IDLE 1
#include "spin.c"
