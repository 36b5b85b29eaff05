"""The vgpu-sim a sweep runs: the project's build (built when needed, as scripts/run does) or
the one --sim names; and running it for answers (validation, ids)."""
import concurrent.futures
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class SimError(Exception):
    pass


def project_sim():
    """Builds vgpu-sim in the project's build folder if needed and returns its path."""
    script = ('source "$0/scripts/lib.sh" && vgpu_build --target vgpu-sim && '
              'echo "$VGPU_BUILD_DIR/platforms/vgpu-sim"')
    r = subprocess.run(["bash", "-c", script, ROOT], stdout=subprocess.PIPE)
    if r.returncode != 0:
        raise SimError("building vgpu-sim failed (see above)")
    return r.stdout.decode().strip().splitlines()[-1]


class SimTool:
    def __init__(self, path):
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise SimError(f"--sim {path}: not an executable file")
        self.path = os.path.abspath(path)

    def run(self, args):
        r = subprocess.run([self.path] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL)
        return r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")

    def output(self, args):
        rc, out, err = self.run(args)
        if rc != 0:
            raise SimError(f"{self.path} {' '.join(args)} failed with exit {rc}: {err.strip()}")
        return out

    def run_many(self, arg_lists, jobs):
        """run() of each argument list, jobs at a time; results in order."""
        if not arg_lists:
            return []
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            return list(pool.map(self.run, arg_lists))
