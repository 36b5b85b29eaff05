"""scripts/sweep: design-space sweeps of vgpu-sim, locally or on Slurm (docs/sweeps.md)."""
