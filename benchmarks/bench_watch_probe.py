"""What does the dependency probe cost inside nndebug.watch, against the full check?

``nd.watch`` checks dependencies once, early (``nndebug/probes/dependencies/watching.py``):
healthy float models are cleared by a two-sample screen on the model itself (``screen.py``),
and only what the screen does not clear pays for ``check_dependencies`` in full (a float64
copy, tens of passes). Per model, the inputs and targets of one training batch go through

  watch's probe   ``DependencyWatch`` as watch calls it (screen, or data-only, or full)
  full check      ``nd.check_dependencies`` on the same batch

each timed in CPU time (median of 7 calls, one torch thread). Memory is measured on a first
call in a fresh process (later calls reuse memory the allocator kept): the growth of the
process's peak resident memory during the call (Linux; "-" elsewhere) and the peak of
Python-side allocations (tracemalloc; torch's own buffers are not traced). Printed as a
markdown table.
Run: python -m benchmarks.bench_watch_probe
"""
import statistics
import sys
import time
import tracemalloc

CLOCK = time.process_time
ROUNDS = 7


def _models():
    import torch
    from torch import nn

    from nndebug.zoo.torch_cases.healthy_residual import Block

    class DeepMLP(nn.Module):
        """24 layers of width 256 in a ModuleList: not a Sequential, so watch cannot skip it."""

        def __init__(self, layers=24, width=256):
            super().__init__()
            self.inp = nn.Linear(64, width)
            self.hidden = nn.ModuleList(nn.Linear(width, width) for _ in range(layers - 2))
            self.out = nn.Linear(width, 10)

        def forward(self, x):
            x = torch.relu(self.inp(x))
            for layer in self.hidden:
                x = torch.relu(layer(x))
            return self.out(x)

    torch.manual_seed(0)
    deep_sequential = [nn.Linear(64, 256), nn.ReLU()]
    for _ in range(22):
        deep_sequential += [nn.Linear(256, 256), nn.ReLU()]
    return [
        ("12-block residual MLP (zoo healthy-residual)",
         nn.Sequential(nn.Linear(64, 64), *[Block(64) for _ in range(12)], nn.LayerNorm(64),
                       nn.Linear(64, 10))),
        ("24-layer MLP, width 256, ModuleList", DeepMLP()),
        ("24-layer MLP, width 256, Sequential", nn.Sequential(*deep_sequential, nn.Linear(256, 10))),
    ]


def _peak_rss_mib():
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def _reset_peak_rss():
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")           # the kernel's "reset the peak RSS" request
        return True
    except OSError:
        return False


def _memory_of(call):
    """(peak RSS growth in MiB or None, tracemalloc peak in MiB) of one call."""
    import gc
    gc.collect()
    before = _peak_rss_mib() if _reset_peak_rss() else None
    tracemalloc.start()
    try:
        call()
        traced = tracemalloc.get_traced_memory()[1] / 2 ** 20
    finally:
        tracemalloc.stop()
    after = _peak_rss_mib() if before is not None else None
    return (None if after is None else after - before), traced


def _calls(model):
    """(watch's probe, the full check, the probe object's box) on one batch of the digits."""
    import torch

    import nndebug as nd
    from nndebug.probes.dependencies.watching import DependencyWatch
    from nndebug.zoo.common import digits
    x, y = digits()
    inputs, targets = torch.as_tensor(x[:64]), torch.as_tensor(y[:64])
    adapter = nd.adapt(model)

    class Run:                        # what the probe reads of a monitor: the targets it saw
        observed = type("Observed", (), {"targets": [(0, targets)]})()

    class Monitor:
        run = Run()

    class Record:
        step = 0

    class Batches:
        forward_listeners = []

    probe = {}

    def watch_probe():
        probe["watch"] = watching = DependencyWatch(adapter, Batches())
        watching.kept = {0: inputs}
        watching(Monitor(), Record())

    def full_check():
        nd.check_dependencies(model, inputs, targets)
    return watch_probe, full_check, probe


def _memory_in_fresh_process(index, which):
    """_memory_of the first call of ``which`` ("watch" or "full") on model ``index``, run in a
    new Python process."""
    import json
    import subprocess
    out = subprocess.run([sys.executable, "-m", "benchmarks.bench_watch_probe", "--memory",
                          str(index), which], capture_output=True, text=True, check=True)
    return tuple(json.loads(out.stdout.strip().splitlines()[-1]))


def _memory_child(index, which):
    import json

    import torch

    import nndebug.probes.dependencies.screen  # noqa: F401  (imports are not the probe's cost)
    torch.set_num_threads(1)
    model = _models()[int(index)][1]
    watch_probe, full_check, _ = _calls(model)
    from nndebug.zoo.common import digits
    x, y = digits()                   # inside watch the probe follows training steps: one here
    loss = torch.nn.functional.cross_entropy(model(torch.as_tensor(x[:64])),
                                             torch.as_tensor(y[:64]))
    loss.backward()
    print(json.dumps(_memory_of(watch_probe if which == "watch" else full_check)))


def _measure(index, model):
    watch_probe, full_check, probe = _calls(model)
    watch_probe(), full_check()      # warm-up (imports, first calls)
    times = {"watch": [], "full": []}
    for _ in range(ROUNDS):
        for key, call in (("watch", watch_probe), ("full", full_check)):
            started = CLOCK()
            call()
            times[key].append(CLOCK() - started)
    return (probe["watch"].ran, statistics.median(times["watch"]) * 1e3,
            statistics.median(times["full"]) * 1e3, _memory_in_fresh_process(index, "watch"),
            _memory_in_fresh_process(index, "full"))


def main(argv=()):
    if argv and argv[0] == "--memory":
        return _memory_child(*argv[1:3])
    import torch
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    rows = []
    try:
        for index, (name, model) in enumerate(_models()):
            rows.append((name, *_measure(index, model)))
    finally:
        torch.set_num_threads(threads)

    def mib(value):
        return "-" if value is None else f"{value:+.1f}"
    print("| model | watch's probe runs | watch's probe (CPU ms) | full check (CPU ms) | "
          "peak RSS growth, probe / full (MiB) | tracemalloc peak, probe / full (MiB) |")
    print("|---|---|---|---|---|---|")
    for name, ran, probe_ms, full_ms, (probe_rss, probe_py), (full_rss, full_py) in rows:
        print(f"| {name} | {ran} | {probe_ms:.1f} | {full_ms:.1f} | {mib(probe_rss)} / "
              f"{mib(full_rss)} | {probe_py:.2f} / {full_py:.2f} |")
    return rows


if __name__ == "__main__":
    main(sys.argv[1:])
