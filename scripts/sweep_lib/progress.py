"""Progress of a sweep: done / running / failed / left and an estimate of the time left, on one
line that updates on a terminal and as plain lines (at most one per interval) otherwise."""
import sys
import time


def duration(seconds):
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


class Progress:
    def __init__(self, total, jobs, stream=None, interval=10.0):
        self.total, self.jobs = total, max(1, jobs)
        self.done = self.failed = self.running = 0
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.interval = interval
        self.start = time.monotonic()
        self.last_print = 0.0
        self.last_line = ""

    def update(self, done=None, failed=None, running=None):
        """New counts (done includes failed); prints when due."""
        if done is not None:
            self.done = done
        if failed is not None:
            self.failed = failed
        if running is not None:
            self.running = running
        self.show()

    def line(self):
        left = self.total - self.done - self.running
        elapsed = time.monotonic() - self.start
        text = (f"sweep: {self.done} done ({self.failed} failed), {self.running} running, "
                f"{left} left of {self.total}")
        if self.done and self.done < self.total:
            rate = elapsed / self.done  # wall seconds per point, at the pool's parallelism
            text += f", about {duration(rate * (self.total - self.done))} left"
        return text + f" [{duration(elapsed)}]"

    def show(self, force=False):
        now = time.monotonic()
        text = self.line()
        if self.tty:
            if text != self.last_line or force:
                self.stream.write("\r\033[K" + text)
                self.stream.flush()
        elif force or (text != self.last_line and now - self.last_print >= self.interval):
            self.stream.write(text + "\n")
            self.stream.flush()
            self.last_print = now
        self.last_line = text

    def finish(self):
        if self.tty:
            self.stream.write("\r\033[K")
        self.stream.write(self.line() + "\n")
        self.stream.flush()
