"""A one-line progress bar for long probes, drawn on stderr only where a person sees it.

Why not tqdm: nndebug depends on NumPy alone. Why stderr: stdout may be piped into a
file or another program, and a bar there would corrupt it. By default the bar is drawn
only when stderr is a terminal (``enabled=None``); ``True`` forces it, ``False`` hides it.
"""
import sys
import time


class Progress:
    """``with Progress(100, "lr-find") as bar: bar.update(i, "loss 0.31")``."""

    width = 28

    def __init__(self, total, label="", *, enabled=None, stream=None):
        self.total = max(int(total), 1)
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        if enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            enabled = bool(isatty and isatty())
        self.enabled = bool(enabled)
        self._last_draw = 0.0
        self._drawn = False

    def update(self, done, text=""):
        """Show ``done`` of ``total`` steps; redraws at most 20 times a second."""
        if not self.enabled:
            return
        now = time.monotonic()
        if done < self.total and now - self._last_draw < 0.05:
            return
        self._last_draw = now
        done = min(max(int(done), 0), self.total)
        filled = round(self.width * done / self.total)
        bar = "#" * filled + "-" * (self.width - filled)
        self.stream.write(f"\r{self.label} [{bar}] {done}/{self.total} {text}".rstrip() + "\x1b[K")
        self.stream.flush()
        self._drawn = True

    def close(self):
        """End the bar's line, so the next output starts on a fresh one."""
        if self.enabled and self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
