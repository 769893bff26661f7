"""Training-step speed over a sweep of sizes: MLPs, CNNs, a char-level GPT and an LSTM.

One step = forward + loss + backward + SGD update (zero_grad included), the same model
source, weights and batch on both sides, BOTH frameworks on ONE thread (torch's
intra-op threads and NumPy's BLAS). Sizes (batch in brackets):

- mlp  64-128-64-10 (64), 256-512-256-10 (64), 784-2048-2048-10 (64)
- cnn  conv3x3 c1 -> c16 -> c32 on 1x8x8 (32), c3 -> c32 -> c64 on 3x16x16 (32),
       c3 -> c64 -> c128 on 3x32x32 (16); each conv followed by ReLU, then max-pool 2 and
       a linear layer to 10 classes
- gpt  ``minigrad.examples.models.make_gpt``: 2 layers, 48 wide, 32 characters (16);
       4 layers, 128 wide, 64 characters (16), with the exact GELU (erf) and again with
       GPT-2's tanh approximation, which shows what the erf costs
- lstm ``make_recurrent_lm``: 2-layer LSTM, 128 hidden, 32 characters (16)

Time: CPU time of the benchmark process (``time.process_time``: time spent waiting for a
core on a shared machine is not counted), the fastest of ROUNDS interleaved rounds (a round
times a burst of steps of one framework, then of the other), so that whatever else the
machine does disturbs both.
Page faults: minor faults per step during the timed rounds (each is a page of memory the
kernel maps in on first touch; malloc returning freed memory to the system makes them).
Peak memory: a fresh process per framework and model; peak resident memory above the
resident memory after imports, a first-use step of a tiny model, and data set-up (Linux
``/proc/self/clear_refs``), over MEMORY_STEPS steps.

The goal (issue #12.7): minigrad at most 1.2x torch's step time at every size. Other
NumPy engines (HIPS autograd, mygrad, tinygrad) are timed only where they are installed;
none is a dependency.

Run:  python -m benchmarks.bench_train_sweep [--quick] [--only mlp,gpt] [--json PATH]
                                            [--keep-freed-memory]
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

if __package__ in (None, ""):   # run as a script: make the project importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOAL = 1.2
FRAMEWORKS = ("torch", "minigrad")
ROUNDS, QUICK_ROUNDS, MEMORY_STEPS = 7, 3, 5
ROUND_SECONDS = 0.25          # a burst lasts about this long (at least one step)
ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
PEERS = ("autograd", "mygrad", "tinygrad")

SIZES = {
    "mlp 64-128-64-10": ("mlp", dict(widths=(64, 128, 64, 10), batch=64)),
    "mlp 256-512-256-10": ("mlp", dict(widths=(256, 512, 256, 10), batch=64)),
    "mlp 784-2048-2048-10": ("mlp", dict(widths=(784, 2048, 2048, 10), batch=64)),
    "cnn 1x8x8 c16-c32": ("cnn", dict(channels=(1, 16, 32), side=8, batch=32)),
    "cnn 3x16x16 c32-c64": ("cnn", dict(channels=(3, 32, 64), side=16, batch=32)),
    "cnn 3x32x32 c64-c128": ("cnn", dict(channels=(3, 64, 128), side=32, batch=16)),
    "gpt 2x48, 32 chars": ("gpt", dict(n_layer=2, n_embd=48, n_head=4, block=32, batch=16)),
    "gpt 4x128, 64 chars": ("gpt", dict(n_layer=4, n_embd=128, n_head=4, block=64, batch=16)),
    "gpt 4x128, 64 chars, tanh GELU": ("gpt", dict(n_layer=4, n_embd=128, n_head=4, block=64,
                                                   batch=16, gelu="tanh")),
    "lstm 2x128, 32 chars": ("lstm", dict(hidden=128, block=32, batch=16)),
}
VOCAB = 64


# --- the frameworks and the models -------------------------------------------------------------

def framework(name):
    from minigrad.examples.models import minigrad_framework, torch_framework
    return torch_framework() if name == "torch" else minigrad_framework()


def _model(fw, kind, size):
    nn = fw.nn
    if kind == "mlp":
        widths = size["widths"]
        layers = []
        for i, (a, b) in enumerate(zip(widths[:-1], widths[1:])):
            layers += [nn.Linear(a, b)] + ([nn.ReLU()] if i < len(widths) - 2 else [])
        return nn.Sequential(*layers)
    if kind == "cnn":
        c0, c1, c2 = size["channels"]
        flat = c2 * (size["side"] // 2) ** 2
        return nn.Sequential(nn.Conv2d(c0, c1, 3, padding=1), nn.ReLU(),
                             nn.Conv2d(c1, c2, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Flatten(), nn.Linear(flat, 10))
    from minigrad.examples.models import make_gpt, make_recurrent_lm
    if kind == "gpt":
        return make_gpt(fw, VOCAB, block_size=size["block"], n_embd=size["n_embd"],
                        n_head=size["n_head"], n_layer=size["n_layer"],
                        gelu=size.get("gelu", "none"))
    return make_recurrent_lm(fw, VOCAB, "LSTM", n_embd=32, hidden=size["hidden"])


def batch_of(kind, size):
    rng = np.random.default_rng(0)
    n = size["batch"]
    if kind == "mlp":
        return (rng.standard_normal((n, size["widths"][0])).astype(np.float32),
                rng.integers(0, 10, n))
    if kind == "cnn":
        side = size["side"]
        return (rng.standard_normal((n, size["channels"][0], side, side)).astype(np.float32),
                rng.integers(0, 10, n))
    ids = rng.integers(0, VOCAB, (n, size["block"] + 1))
    return ids[:, :-1], ids[:, 1:]


def build(fw_name, label, weights=None):
    """One training step of ``label`` in ``fw_name``, torch's initial weights in both."""
    kind, size = SIZES[label]
    if weights is None:
        import torch
        torch.manual_seed(0)
        weights = {k: v.numpy().copy() for k, v in
                   _model(framework("torch"), kind, size).state_dict().items()}
    fw = framework(fw_name)
    model = _model(fw, kind, size)
    model.load_state_dict({k: fw.tensor(v) for k, v in weights.items()})
    optimizer = fw.optim.SGD(model.parameters(), lr=0.01)
    x, y = (fw.tensor(a) for a in batch_of(kind, size))

    def step():
        optimizer.zero_grad()
        out = model(x) if kind in ("mlp", "cnn") else model(x, y)
        loss = fw.F.cross_entropy(out, y) if kind in ("mlp", "cnn") else out[1]
        loss.backward()
        optimizer.step()
        return float(fw.numpy(loss))
    return step


# --- child processes -------------------------------------------------------------------------

def _timing_child(labels, rounds):
    import torch
    torch.set_num_threads(1)
    try:
        from threadpoolctl import threadpool_limits
        limit = threadpool_limits(1)
    except ImportError:
        limit = None   # the parent's environment variables already hold
    result = {}
    for label in labels:
        steps = {fw: build(fw, label) for fw in FRAMEWORKS}
        first = {fw: steps[fw]() for fw in FRAMEWORKS}
        bursts = {}
        for fw in FRAMEWORKS:   # warm up, and size a burst to about ROUND_SECONDS
            start = time.process_time()
            steps[fw]()
            bursts[fw] = max(1, int(ROUND_SECONDS / max(time.process_time() - start, 1e-6)))
        burst = min(bursts.values())
        times = {fw: [] for fw in FRAMEWORKS}
        faults = {fw: [] for fw in FRAMEWORKS}
        for index in range(rounds):
            for fw in (FRAMEWORKS if index % 2 == 0 else FRAMEWORKS[::-1]):
                faulted = _page_faults()
                start = time.process_time()
                for _ in range(burst):
                    steps[fw]()
                times[fw].append((time.process_time() - start) / burst * 1e3)
                faults[fw].append((_page_faults() - faulted) / burst)
        result[label] = {"first_loss": first, "step_ms": times, "faults_per_step": faults}
    del limit
    return result


def _page_faults():
    """Minor page faults of this process so far (memory the kernel mapped in on first touch)."""
    try:
        import resource
    except ImportError:   # not on this platform
        return 0
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _memory_child(fw_name, label):
    from benchmarks.bench_train import _first_use, _rss_kib
    _first_use(fw_name)
    import torch
    torch.manual_seed(0)
    kind, size = SIZES[label]
    weights = {k: v.numpy().copy() for k, v in
               _model(framework("torch"), kind, size).state_dict().items()}
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")   # reset the peak RSS mark to the current RSS
    base = _rss_kib("VmRSS")
    step = build(fw_name, label, weights)
    for _ in range(MEMORY_STEPS):
        step()
    return {"peak_mib": (_rss_kib("VmHWM") - base) / 1024}


def _run_child(call, keep_freed_memory=False):
    env = dict(os.environ, **ONE_THREAD)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    code = f"import json, benchmarks.bench_train_sweep as b; print(json.dumps(b.{call}))"
    if keep_freed_memory:   # process-wide: torch and minigrad in the child both get it
        code = "import minigrad.memory as m; assert m.keep_freed_memory(); " + code
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         cwd=ROOT)
    if out.returncode != 0:
        raise RuntimeError(f"benchmark child {call} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


# --- the report -------------------------------------------------------------------------------

def measure(labels, quick=False, keep_freed_memory=False):
    rounds = QUICK_ROUNDS if quick else ROUNDS
    load_before = os.getloadavg()[0]
    timing = _run_child(f"_timing_child({labels!r}, {rounds})", keep_freed_memory)
    memory = {}
    if sys.platform.startswith("linux"):
        memory = {f"{fw}/{label}": _run_child(f"_memory_child({fw!r}, {label!r})",
                                              keep_freed_memory)["peak_mib"]
                  for label in labels for fw in FRAMEWORKS}
    import importlib.util
    peers = {name: importlib.util.find_spec(name) is not None for name in PEERS}
    return {"timing": timing, "memory": memory, "rounds": rounds, "peers": peers,
            "keep_freed_memory": keep_freed_memory,
            "load_before": load_before, "load_after": os.getloadavg()[0],
            "cores": os.cpu_count()}


def _median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def table(results):
    lines = ["| model (batch) | torch step (ms) | minigrad step (ms) | ratio | goal <= "
             f"{GOAL} | torch peak MiB | minigrad peak MiB |",
             "|---|---:|---:|---:|---|---:|---:|"]
    for label, run in results["timing"].items():
        torch_ms, mg_ms = (min(run["step_ms"][fw]) for fw in FRAMEWORKS)
        ratio = mg_ms / torch_ms
        memory = [results["memory"].get(f"{fw}/{label}") for fw in FRAMEWORKS]
        memory = [f"{m:.1f}" if m is not None else "-" for m in memory]
        batch = SIZES[label][1]["batch"]
        lines.append(f"| {label} ({batch}) | {torch_ms:.2f} | {mg_ms:.2f} | {ratio:.2f} | "
                     f"{'met' if ratio <= GOAL else 'missed'} | {memory[0]} | {memory[1]} |")
    missing = [name for name, there in results["peers"].items() if not there]
    faults = [f"{label} {_median(run['faults_per_step']['torch']):.0f} / "
              f"{_median(run['faults_per_step']['minigrad']):.0f}"
              for label, run in results["timing"].items() if "faults_per_step" in run]
    lines += [
        "",
        f"Both on ONE thread; step = zero_grad + forward + loss + backward + SGD, CPU time; "
        f"the fastest of {results['rounds']} interleaved rounds; ratio = minigrad / torch. Peak MiB: "
        f"resident memory above the set-up, {MEMORY_STEPS} steps, a fresh process each.",
        f"Machine: {results['cores']} cores, load average {results['load_before']:.1f} before, "
        f"{results['load_after']:.1f} after.",
        *(["malloc keeps freed memory (minigrad.memory.keep_freed_memory(), process-wide: both "
           "frameworks)."] if results.get("keep_freed_memory") else []),
        "Other NumPy engines: " + (f"not installed here ({', '.join(missing)})" if missing
                                   else "installed, not yet wired into this sweep"),
        *(["Page faults per step, median over the rounds (torch / minigrad): " + "; ".join(faults)]
          if faults else []),
    ]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (noisier)")
    parser.add_argument("--only", default="", help="comma-separated kinds: mlp,cnn,gpt,lstm")
    parser.add_argument("--json", metavar="PATH", help="also write the raw measurements here")
    parser.add_argument("--keep-freed-memory", action="store_true",
                        help="glibc keeps freed memory for reuse (both frameworks; see "
                             "minigrad/memory.py)")
    args, _ = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    try:
        import torch  # noqa: F401
    except ImportError:
        print("bench_train_sweep compares against PyTorch, which is not installed; nothing measured")
        return None
    kinds = [k for k in args.only.split(",") if k]
    labels = [label for label, (kind, _) in SIZES.items() if not kinds or kind in kinds]
    results = measure(labels, quick=args.quick, keep_freed_memory=args.keep_freed_memory)
    print(table(results))
    if args.json:
        with open(args.json, "w") as out:
            json.dump(results, out, indent=1)
    return results


if __name__ == "__main__":
    main()
