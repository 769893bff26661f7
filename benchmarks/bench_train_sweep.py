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

The goal (issue #12.7): minigrad at most 1.2x torch's step time at every size.

Peers: other autograd engines (HIPS autograd, mygrad, tinygrad; ``train_peers.py`` writes
their step) are timed where they are installed, none is a dependency (``make bench-peers``
installs them into .venv). Each runs in its own child process with torch, interleaved as
above, and its column is peer step / torch step in that child; a peer that is missing, or
whose child fails, shows "-" and a note. Before timing, each side runs CHECK_STEPS steps: the
peer's first loss and its loss after those steps must match torch's (LOSS_RTOL), and fall.

Run:  python -m benchmarks.bench_train_sweep [--quick] [--only mlp,gpt] [--json PATH]
                                            [--keep-freed-memory] [--peers autograd,mygrad|none]
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time

import numpy as np

if __package__ in (None, ""):   # run as a script: make the project importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.train_peers import PEERS, TINYGRAD_ENV, VERSIONS  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOAL = 1.2
FRAMEWORKS = ("torch", "minigrad")
ROUNDS, QUICK_ROUNDS, MEMORY_STEPS = 7, 3, 5
ROUND_SECONDS = 0.25          # a burst lasts about this long (at least one step)
ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
CHECK_STEPS, LOSS_RTOL = 5, 1e-4       # the peers' correctness check (see _peer_checks)
PEER_TIMEOUT = 1800                     # seconds for one peer's child (tinygrad compiles kernels)

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


def torch_weights(label):
    """torch's initial weights of ``label``'s model under seed 0, as NumPy arrays by name."""
    import torch
    kind, size = SIZES[label]
    torch.manual_seed(0)
    return {k: v.numpy().copy() for k, v in
            _model(framework("torch"), kind, size).state_dict().items()}


def build(fw_name, label, weights=None):
    """One training step of ``label`` in ``fw_name``, torch's initial weights in both."""
    kind, size = SIZES[label]
    weights = torch_weights(label) if weights is None else weights
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

def _one_thread():
    """torch and NumPy's BLAS on one thread in this child; returns the BLAS limit to keep alive."""
    import torch
    torch.set_num_threads(1)
    try:
        from threadpoolctl import threadpool_limits
        return threadpool_limits(1)
    except ImportError:
        return None   # the parent's environment variables already hold


def _time_interleaved(steps, rounds):
    """CPU ms per step of each step function in ``steps`` (name -> step), over ``rounds``
    interleaved rounds of a burst each (the order alternating), plus wall-clock ms and page
    faults per step."""
    names = tuple(steps)
    bursts = {}
    for name in names:   # warm up, and size a burst to about ROUND_SECONDS
        start = time.process_time()
        steps[name]()
        bursts[name] = max(1, int(ROUND_SECONDS / max(time.process_time() - start, 1e-6)))
    burst = min(bursts.values())
    times, wall, faults = ({name: [] for name in names} for _ in range(3))
    for index in range(rounds):
        for name in (names if index % 2 == 0 else names[::-1]):
            faulted, started = _page_faults(), time.perf_counter()
            start = time.process_time()
            for _ in range(burst):
                steps[name]()
            times[name].append((time.process_time() - start) / burst * 1e3)
            wall[name].append((time.perf_counter() - started) / burst * 1e3)
            faults[name].append((_page_faults() - faulted) / burst)
    return {"step_ms": times, "wall_ms": wall, "faults_per_step": faults}


def _timing_child(labels, rounds):
    limit = _one_thread()
    result = {}
    for label in labels:
        steps = {fw: build(fw, label) for fw in FRAMEWORKS}
        first = {fw: steps[fw]() for fw in FRAMEWORKS}
        result[label] = {"first_loss": first, **_time_interleaved(steps, rounds)}
    del limit
    return result


def _peer_child(engine, labels, rounds):
    """``engine``'s step against torch's, on the labels whose kind train_peers writes for it.

    Returns {"missing": True} when the engine cannot be imported here; otherwise its version
    and, per label, both sides' first CHECK_STEPS losses and the interleaved timings."""
    import importlib.metadata
    import importlib.util
    if importlib.util.find_spec(engine) is None:
        return {"missing": True}
    from benchmarks import train_peers
    kinds = train_peers.kinds_written(engine)
    limit = _one_thread()
    result = {"version": importlib.metadata.version(engine), "rows": {}}
    for label in labels:
        kind, size = SIZES[label]
        if kind not in kinds:
            continue
        weights = torch_weights(label)
        steps = {"torch": build("torch", label, weights),
                 engine: train_peers.build_peer(engine, kind, weights, *batch_of(kind, size))}
        losses = {name: [step() for _ in range(CHECK_STEPS)] for name, step in steps.items()}
        result["rows"][label] = {"losses": losses, **_time_interleaved(steps, rounds)}
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


def _run_child(call, keep_freed_memory=False, extra_env=None, timeout=None):
    env = dict(os.environ, **ONE_THREAD, **(extra_env or {}))
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    code = f"import json, benchmarks.bench_train_sweep as b; print(json.dumps(b.{call}))"
    if keep_freed_memory:   # process-wide: every framework in the child gets it
        code = "import minigrad.memory as m; assert m.keep_freed_memory(); " + code
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         cwd=ROOT, timeout=timeout)
    if out.returncode != 0:
        raise RuntimeError(f"benchmark child {call} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _peer_result(engine, labels, rounds, keep_freed_memory=False):
    """The peer child's result, or {"error": why} when it failed: a peer never stops the sweep."""
    try:
        return _run_child(f"_peer_child({engine!r}, {labels!r}, {rounds})", keep_freed_memory,
                          extra_env=TINYGRAD_ENV, timeout=PEER_TIMEOUT)
    except subprocess.TimeoutExpired:
        return {"error": f"no result within {PEER_TIMEOUT} s"}
    except (RuntimeError, ValueError, IndexError) as error:   # crashed, or printed no result
        lines = [line for line in str(error).splitlines() if line.strip()]
        return {"error": lines[-1].strip() if lines else type(error).__name__}


# --- the report -------------------------------------------------------------------------------

def measure(labels, quick=False, keep_freed_memory=False, peers=PEERS):
    rounds = QUICK_ROUNDS if quick else ROUNDS
    load_before = os.getloadavg()[0]
    timing = _run_child(f"_timing_child({labels!r}, {rounds})", keep_freed_memory)
    memory = {}
    if sys.platform.startswith("linux"):
        memory = {f"{fw}/{label}": _run_child(f"_memory_child({fw!r}, {label!r})",
                                              keep_freed_memory)["peak_mib"]
                  for label in labels for fw in FRAMEWORKS}
    peers = {engine: _peer_result(engine, labels, rounds, keep_freed_memory) for engine in peers}
    return {"timing": timing, "memory": memory, "rounds": rounds, "peers": peers,
            "keep_freed_memory": keep_freed_memory,
            "load_before": load_before, "load_after": os.getloadavg()[0],
            "cores": os.cpu_count()}


def _median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def _peer_ratio(engine, peer, label):
    """``engine``'s fastest step / torch's fastest step in the peer's own child, or None where
    there is no row (not installed, its child failed, or the kind not written for it)."""
    row = peer.get("rows", {}).get(label)
    if row is None:
        return None
    return min(row["step_ms"][engine]) / min(row["step_ms"]["torch"])


def _peer_checks(engine, row):
    """What differs from torch in the peer's first CHECK_STEPS losses; empty when its step is
    the same step (same first loss, same loss CHECK_STEPS - 1 updates later, and falling)."""
    theirs, torch_losses = row["losses"][engine], row["losses"]["torch"]
    problems = [f"{what} loss {theirs[i]:.6g}, torch {torch_losses[i]:.6g}"
                for what, i in (("first", 0), (f"step {CHECK_STEPS}", -1))
                if not math.isclose(theirs[i], torch_losses[i], rel_tol=LOSS_RTOL)]
    if not theirs[-1] < theirs[0]:
        problems.append(f"its loss does not fall ({theirs[0]:.4g} -> {theirs[-1]:.4g})")
    return problems


PEER_REMARKS = {   # how each peer's step is written, where the reader needs to know
    "autograd": "CNN convolution by im2col in autograd.numpy (autograd has no conv layer)",
    "tinygrad": "CPU backend (compiles with clang), NUM_CPU_THREADS=1, the step under TinyJit",
}


def _peer_notes(results):
    """One note per peer: missing, failed, or its version, its check and remarks."""
    notes = []
    for engine, peer in results["peers"].items():
        if peer.get("missing"):
            notes.append(f"{engine}: not installed (make bench-peers installs {engine} "
                         f"{VERSIONS.get(engine, '')})")
            continue
        if "error" in peer:
            notes.append(f"{engine}: its child failed, no numbers: {peer['error']}")
            continue
        rows = peer["rows"]
        failed = {label: problems for label, row in rows.items()
                  if (problems := _peer_checks(engine, row))}
        worst = max((abs(row["losses"][engine][i] / row["losses"]["torch"][i] - 1)
                     for row in rows.values() for i in (0, -1)), default=0.0)
        check = ("CHECK FAILED (*): " + "; ".join(f"{label}: {', '.join(problems)}"
                                                   for label, problems in failed.items())
                 if failed else f"same losses as torch over {CHECK_STEPS} steps (largest "
                                f"relative difference {worst:.1e}), falling")
        walls = [min(row["wall_ms"][engine]) / min(row["wall_ms"]["torch"])
                 for row in rows.values()]
        wall = f"; wall-clock ratios {min(walls):.2f}-{max(walls):.2f}" if walls else ""
        notes.append(f"{engine} {peer['version']}: {check}{wall}")
        if engine in PEER_REMARKS:
            notes.append(f"  {PEER_REMARKS[engine]}")
    return notes


def _torch_again(results):
    """The A/A control: torch's fastest step in the peers' children over its fastest step in the
    main child. The same step timed twice; how far from 1 it is, is this run's noise."""
    again = [min(row["step_ms"]["torch"]) / min(results["timing"][label]["step_ms"]["torch"])
             for peer in results["peers"].values() for label, row in peer.get("rows", {}).items()
             if label in results["timing"]]
    if not again:
        return []
    return [f"A/A: torch's step in the peers' children / in the main child {min(again):.2f}-"
            f"{max(again):.2f} (the same step timed twice: this run's noise)"]


def table(results):
    peers = results["peers"]
    lines = ["| model (batch) | torch step (ms) | minigrad step (ms) | ratio | goal <= "
             f"{GOAL} | " + "".join(f"{engine} / torch | " for engine in peers) +
             "torch peak MiB | minigrad peak MiB |",
             "|---|---:|---:|---:|---|" + "---:|" * len(peers) + "---:|---:|"]
    for label, run in results["timing"].items():
        torch_ms, mg_ms = (min(run["step_ms"][fw]) for fw in FRAMEWORKS)
        ratio = mg_ms / torch_ms
        memory = [results["memory"].get(f"{fw}/{label}") for fw in FRAMEWORKS]
        memory = [f"{m:.1f}" if m is not None else "-" for m in memory]
        cells = []
        for engine, peer in peers.items():
            peer_ratio = _peer_ratio(engine, peer, label)
            checked = peer_ratio is None or not _peer_checks(engine, peer["rows"][label])
            cells.append("-" if peer_ratio is None else f"{peer_ratio:.2f}{'' if checked else '*'}")
        batch = SIZES[label][1]["batch"]
        lines.append(f"| {label} ({batch}) | {torch_ms:.2f} | {mg_ms:.2f} | {ratio:.2f} | "
                     f"{'met' if ratio <= GOAL else 'missed'} | " +
                     "".join(f"{cell} | " for cell in cells) + f"{memory[0]} | {memory[1]} |")
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
        ("Peers: peer / torch, both timed the same way in the peer's own child; \"-\": not "
         "installed, failed, or\n  not written (train_peers.py writes the MLP and CNN steps)."
         if peers else "Peers: not run (--peers none)."),
        *_peer_notes(results),
        *_torch_again(results),
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
    parser.add_argument("--peers", default=",".join(PEERS),
                        help="comma-separated peers to time against torch, or none (default: "
                             "%(default)s; those not installed show '-')")
    args, _ = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    try:
        import torch  # noqa: F401
    except ImportError:
        print("bench_train_sweep compares against PyTorch, which is not installed; nothing measured")
        return None
    kinds = [k for k in args.only.split(",") if k]
    labels = [label for label, (kind, _) in SIZES.items() if not kinds or kind in kinds]
    peers = [p for p in args.peers.split(",") if p and p != "none"]
    unknown = sorted(set(peers) - set(PEERS))
    if unknown:
        parser.error(f"--peers: unknown {', '.join(unknown)}; expected some of "
                     f"{', '.join(PEERS)}, or none")
    results = measure(labels, quick=args.quick, keep_freed_memory=args.keep_freed_memory,
                      peers=peers)
    print(table(results))
    if args.json:
        with open(args.json, "w") as out:
            json.dump(results, out, indent=1)
    return results


if __name__ == "__main__":
    main()
