"""Training-step time and peak memory: minigrad against PyTorch on the CPU.

Same model, same data, same optimizer, same initial weights (torch's, copied into
minigrad), one full training step each (zero_grad, forward, loss, backward, Adam step):

- mlp: the digits MLP 64-128-64-10, batch 64, Adam, CrossEntropyLoss;
- cnn: a small CNN on the 8x8 digits: conv3x3(1->8) ReLU, conv3x3(8->16) ReLU,
  max-pool 2, linear 256->10; batch 64, Adam, CrossEntropyLoss.

Goals (issue #2): the MLP step at most 1.5x torch's time, the CNN step at most 3x.

How it is measured
------------------
* Time: both frameworks run in one child process, interleaved: each of ROUNDS rounds
  times a burst of consecutive steps of one framework, then of the other (the order
  alternating from round to round). A step's time is the burst's mean; the table
  shows each framework's fastest round - the one least disturbed by whatever else
  the machine was doing - and the ratio of the two. The load average is printed
  with the table: on a busy machine, re-run when it is lower.
* Threads: the headline rows run BOTH frameworks on ONE thread. The child starts with
  OMP/OPENBLAS/MKL_NUM_THREADS=1 (NumPy's BLAS reads them at import), calls
  torch.set_num_threads(1), and threadpoolctl, where installed, enforces and reports
  the limit. Why: these matrices are small, and on a machine with few cores and other
  work, BLAS threads spinning for cores can make a small matmul ten times slower -
  noise about the machine, not about either framework. A second run with each
  library's default threads is printed for information. (minigrad itself never
  changes thread settings: that is the benchmark's choice, not the library's.)
* Memory: one fresh child per framework and model. It imports the framework, runs one
  step of a tiny model (lazy imports and one-time runtime set-up are the framework's,
  not this model's), loads the data, and then resets its peak-RSS mark (Linux
  /proc/self/clear_refs). Then the model and optimizer are built and MEMORY_STEPS steps
  run. The number is the peak resident memory above the resident memory at the reset:
  parameters, gradients, optimizer state, what forward saves for backward, temporaries,
  and whatever the framework's allocator holds on to. Without the reset (not Linux) it
  falls back to the growth of ru_maxrss, which reads low - even 0 - when the earlier
  set-up peaked higher than training.

Run:  python -m benchmarks.bench_train [--quick] [--json PATH]
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
BATCH = 64
GOALS = {"mlp": 1.5, "cnn": 3.0}
FRAMEWORKS = ("torch", "minigrad")
STEPS_PER_ROUND = {"mlp": 40, "cnn": 10}   # a round is some tens of milliseconds
ROUNDS, WARMUP, MEMORY_STEPS = 15, 20, 50
ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


# --- the models and one training step ------------------------------------------------------

def digits_batches():
    from minigrad.data import load_digits
    x, y = load_digits()
    x = (x[:BATCH].astype(np.float32) / 16.0 - 0.5) / 0.5
    return x, y[:BATCH].astype(np.int64)


def _mlp(nn):
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(),
                         nn.Linear(64, 10))


def _cnn(nn):
    return nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(16 * 4 * 4, 10))


def initial_weights(kind):
    """torch's default initialisation under seed 0, as NumPy arrays by parameter name."""
    import torch
    import torch.nn as nn
    torch.manual_seed(0)
    model = _mlp(nn) if kind == "mlp" else _cnn(nn)
    return {name: value.detach().numpy().copy() for name, value in model.state_dict().items()}


def build(framework, kind, batch=None, weights=None):
    """A function running one training step of ``framework`` on ``kind``; returns the loss."""
    x, y = digits_batches() if batch is None else batch
    if kind == "cnn":
        x = x.reshape(-1, 1, 8, 8)
    weights = initial_weights(kind) if weights is None else weights
    if framework == "torch":
        import torch
        import torch.nn as nn
        model = _mlp(nn) if kind == "mlp" else _cnn(nn)
        model.load_state_dict({name: torch.from_numpy(value) for name, value in weights.items()})
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        xb, yb = torch.from_numpy(x), torch.from_numpy(y)
    else:
        import minigrad as mg
        import minigrad.nn as nn
        import minigrad.optim as optim
        model = _mlp(nn) if kind == "mlp" else _cnn(nn)
        model.load_state_dict(weights)
        opt = optim.Adam(model.parameters(), lr=1e-3)
        xb, yb = mg.tensor(x), mg.tensor(y)
    loss_fn = nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        return float(loss.item())
    return step


# --- child processes ----------------------------------------------------------------------

def _blas_threads():
    """What threadpoolctl sees (None without it): the BLAS libraries' thread counts."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return None
    return sorted({f"{pool['internal_api']}={pool['num_threads']}" for pool in threadpool_info()})


def _timing_child(kinds, single, rounds):
    import contextlib

    import torch
    limit = contextlib.nullcontext()
    if single:
        torch.set_num_threads(1)
        try:
            from threadpoolctl import threadpool_limits
            limit = threadpool_limits(1)
        except ImportError:
            pass   # the environment variables set by the parent already hold
    result = {"torch_threads": torch.get_num_threads()}
    with limit:
        result["blas_threads"] = _blas_threads()
        for kind in kinds:
            steps = {fw: build(fw, kind) for fw in FRAMEWORKS}
            first_loss = {fw: steps[fw]() for fw in FRAMEWORKS}
            for fw in FRAMEWORKS:
                for _ in range(WARMUP):
                    steps[fw]()
            times = {fw: [] for fw in FRAMEWORKS}
            repeat = STEPS_PER_ROUND[kind]
            for round_index in range(rounds):
                order = FRAMEWORKS if round_index % 2 == 0 else FRAMEWORKS[::-1]
                for fw in order:
                    start = time.perf_counter()
                    for _ in range(repeat):
                        steps[fw]()
                    times[fw].append((time.perf_counter() - start) / repeat * 1e6)
            result[kind] = {"first_loss": first_loss, "step_us": times}
    return result


def _rss_kib(field):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def _first_use(framework):
    """One step of a tiny model with every layer kind used here: lazy imports and one-time
    runtime set-up happen now, not inside the measurement (they are not the model's)."""
    if framework == "torch":
        import torch as lib
        import torch.nn as nn
        import torch.optim as optim
        lib.set_num_threads(1)
        make = lib.from_numpy
    else:
        import minigrad as lib
        import minigrad.nn as nn
        import minigrad.optim as optim
        make = lib.tensor
    model = nn.Sequential(nn.Conv2d(1, 1, 1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Linear(1, 2))
    opt = optim.Adam(model.parameters(), lr=1e-3)
    loss = nn.CrossEntropyLoss()(model(make(np.ones((1, 1, 2, 2), np.float32))),
                                 make(np.zeros(1, np.int64)))
    loss.backward()
    opt.step()


def _memory_child(framework, kind):
    import resource
    _first_use(framework)
    batch, weights = digits_batches(), initial_weights(kind)   # not the framework's memory
    try:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")   # "5": reset the peak RSS (VmHWM) to the current RSS
        method, base = "VmHWM", _rss_kib("VmRSS")
    except OSError:
        method, base = "ru_maxrss", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    step = build(framework, kind, batch, weights)
    for _ in range(MEMORY_STEPS):
        step()
    if method == "VmHWM":
        peak = _rss_kib("VmHWM")
    else:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        if sys.platform == "darwin":   # bytes there, KiB on Linux
            peak, base = peak // 1024, base // 1024
    return {"peak_mib": (peak - base) / 1024, "method": method}


def _run_child(call, single=True):
    env = dict(os.environ)
    if single:
        env.update(ONE_THREAD)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    code = f"import json, benchmarks.bench_train as b; print(json.dumps(b.{call}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         cwd=ROOT)
    if out.returncode != 0:
        raise RuntimeError(f"benchmark child {call} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


# --- the report ---------------------------------------------------------------------------

def measure(quick=False):
    rounds = 6 if quick else ROUNDS
    kinds = list(GOALS)
    load_before = os.getloadavg()[0]
    runs = {mode: _run_child(f"_timing_child({kinds!r}, {mode == 'single'}, {rounds})",
                             single=mode == "single") for mode in ("single", "default")}
    memory = {(fw, kind): _run_child(f"_memory_child({fw!r}, {kind!r})")
              for kind in kinds for fw in FRAMEWORKS}
    return {"runs": runs, "memory": {f"{fw}/{kind}": m for (fw, kind), m in memory.items()},
            "load_before": load_before, "load_after": os.getloadavg()[0], "rounds": rounds,
            "cores": os.cpu_count()}


def _steps(run, kind, pick):
    """torch and minigrad step times (us) of one timing run, ``pick`` (min/median) over rounds."""
    return tuple(float(pick(run[kind]["step_us"][fw])) for fw in FRAMEWORKS)


def table(results):
    single, default = results["runs"]["single"], results["runs"]["default"]
    blas = ", ".join(single["blas_threads"] or ["OPENBLAS/OMP/MKL_NUM_THREADS=1"])
    methods = "/".join(sorted({m["method"] for m in results["memory"].values()}))
    lines = [
        "| model | torch step (us) | minigrad step (us) | ratio | ratio of median rounds | goal "
        "| torch peak MiB | minigrad peak MiB |",
        "|---|---:|---:|---:|---:|---|---:|---:|"]
    for kind, goal in GOALS.items():
        torch_us, mg_us = _steps(single, kind, min)
        torch_median, mg_median = _steps(single, kind, np.median)
        ratio = mg_us / torch_us
        mem = [results["memory"][f"{fw}/{kind}"]["peak_mib"] for fw in FRAMEWORKS]
        lines.append(f"| {kind} | {torch_us:.0f} | {mg_us:.0f} | {ratio:.2f} | "
                     f"{mg_median / torch_median:.2f} | <= {goal} "
                     f"{'met' if ratio <= goal else 'MISSED'} | {mem[0]:.1f} | {mem[1]:.1f} |")
    lines += [
        "",
        f"Both frameworks on ONE thread (torch.set_num_threads(1); NumPy's BLAS: {blas}). "
        f"Step: zero_grad + forward + loss + backward + Adam step, batch {BATCH}; its time is "
        f"the fastest of {results['rounds']} interleaved rounds of "
        f"{'/'.join(str(STEPS_PER_ROUND[k]) for k in GOALS)} steps (mlp/cnn); ratio = minigrad / "
        "torch.",
        f"Peak MiB: peak resident memory above the process's resident memory after imports, "
        f"first-use set-up and data loading, while building the model and optimizer and running "
        f"{MEMORY_STEPS} steps; a fresh process each ({methods}).",
        f"Machine: {results['cores']} cores; load average {results['load_before']:.1f} before, "
        f"{results['load_after']:.1f} after (other work on the machine slows both sides).",
        "",
        f"For information, each library's default threads (torch {default['torch_threads']}; "
        f"BLAS {', '.join(default['blas_threads'] or ['default'])}):",
        "",
        "| model | torch step (us) | minigrad step (us) | ratio |",
        "|---|---:|---:|---:|"]
    for kind in GOALS:
        torch_us, mg_us = _steps(default, kind, min)
        lines.append(f"| {kind} | {torch_us:.0f} | {mg_us:.0f} | {mg_us / torch_us:.2f} |")
    losses = "; ".join(f"{kind} torch {single[kind]['first_loss']['torch']:.5f}, minigrad "
                       f"{single[kind]['first_loss']['minigrad']:.5f}" for kind in GOALS)
    lines += ["", f"Same weights and data on both sides; first-step losses: {losses}."]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (noisier)")
    parser.add_argument("--json", metavar="PATH", help="also write the raw measurements here")
    args, _ = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    try:
        import torch  # noqa: F401
    except ImportError:
        print("bench_train compares against PyTorch, which is not installed "
              "(pip install -e '.[torch]'); nothing measured")
        return None
    results = measure(quick=args.quick)
    print(table(results))
    if args.json:
        with open(args.json, "w") as out:
            json.dump(results, out, indent=1)
    return results


if __name__ == "__main__":
    main()
