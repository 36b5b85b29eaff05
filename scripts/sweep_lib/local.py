"""--launcher local: the points run in a pool of --jobs processes on this host."""
import concurrent.futures
import threading

from sweep_lib import task


def launch(sweepdir, points, sim, jobs, progress, **_):
    """Runs points (manifest entries) with the simulator sim; returns their statuses by id.
    Ctrl-C or SIGTERM stops the pool: running points are killed and left without a status
    (a --resume runs them again)."""
    statuses = {}
    lock = threading.Lock()
    running = set()

    def one(p):
        with lock:
            running.add(p["id"])
            progress.update(running=len(running))
        try:
            st = task.run_point(sweepdir, p, sim, "local")
        finally:
            with lock:
                running.discard(p["id"])
        with lock:
            statuses[p["id"]] = st
            progress.update(done=len(statuses),
                            failed=sum(1 for s in statuses.values() if s["exit_status"] != 0),
                            running=len(running))
        return st

    pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        futures = [pool.submit(one, p) for p in points]
        pending = set(futures)
        while pending:
            finished, pending = concurrent.futures.wait(pending, timeout=1.0)
            for f in finished:
                f.result()
            progress.show()
    except BaseException:
        task.stop_all()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown()
    return statuses
