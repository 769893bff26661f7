"""Training-step time and peak memory: minigrad against PyTorch on the CPU.

Same model, same data, same optimizer, measured in turn in one run:
- the digits MLP 64-128-64-10, batch 64, Adam;
- a small CNN on the 8x8 digits: conv3x3(1->8) ReLU, conv3x3(8->16) ReLU, max-pool 2, linear.

Goals (issue #2): MLP step at most 1.5x torch, CNN at most 3x.

    python -m benchmarks.bench_train            # prints a markdown table
Peak memory is measured in a fresh subprocess per framework (ru_maxrss growth over the
process after imports), so one framework's allocations do not hide the other's.
"""
import json
import resource
import subprocess
import sys
import time

import numpy as np

BATCH = 64
WARMUP, REPEATS, ROUNDS = 20, 200, 5


def digits_batches():
    from minigrad.data import load_digits
    x, y = load_digits()
    x = (x.astype(np.float32) / 16.0 - 0.5) / 0.5
    return x[:BATCH], y[:BATCH].astype(np.int64)


def build(framework, kind):
    """(step function, model) for one framework; weights copied from one seed."""
    x, y = digits_batches()
    if framework == "torch":
        import torch
        import torch.nn as nn
        torch.manual_seed(0)
        torch.set_num_threads(1)
        model = _mlp(nn) if kind == "mlp" else _cnn(nn)
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        xb = torch.from_numpy(x if kind == "mlp" else x.reshape(-1, 1, 8, 8))
        yb = torch.from_numpy(y)
        loss_fn = nn.CrossEntropyLoss()
    else:
        import minigrad as mg
        import minigrad.nn as nn
        import minigrad.optim as optim
        mg.manual_seed(0)
        model = _mlp(nn) if kind == "mlp" else _cnn(nn)
        opt = optim.Adam(model.parameters(), lr=1e-3)
        xb = mg.tensor(x if kind == "mlp" else x.reshape(-1, 1, 8, 8))
        yb = mg.tensor(y)
        loss_fn = nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        return loss
    return step


def _mlp(nn):
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(),
                         nn.Linear(64, 10))


def _cnn(nn):
    return nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(16 * 4 * 4, 10))


def time_steps(step):
    """Median over rounds of the mean step time, in microseconds."""
    for _ in range(WARMUP):
        step()
    rounds = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        for _ in range(REPEATS):
            step()
        rounds.append((time.perf_counter() - start) / REPEATS * 1e6)
    return float(np.median(rounds))


def peak_memory_mib(framework, kind):
    """Run 100 steps in a fresh process; the growth of its peak RSS, in MiB."""
    code = (f"import resource, benchmarks.bench_train as b; "
            f"step = b.build({framework!r}, {kind!r}); "
            f"base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss; "
            f"[step() for _ in range(100)]; "
            f"print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main():
    rows = []
    for kind, goal in (("mlp", 1.5), ("cnn", 3.0)):
        # interleave the two frameworks so machine noise hits both alike
        times = {"torch": [], "minigrad": []}
        steps = {fw: build(fw, kind) for fw in times}
        for _ in range(3):
            for fw in times:
                times[fw].append(time_steps(steps[fw]))
        t_torch, t_mg = min(times["torch"]), min(times["minigrad"])
        mem = {fw: peak_memory_mib(fw, kind) for fw in times}
        rows.append((kind, t_torch, t_mg, t_mg / t_torch, goal, mem["torch"], mem["minigrad"]))
    print("| model | torch step (us) | minigrad step (us) | ratio | goal | torch peak MiB | "
          "minigrad peak MiB |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for kind, tt, tm, ratio, goal, mt, mm in rows:
        mark = "ok" if ratio <= goal else "MISSED"
        print(f"| {kind} | {tt:.0f} | {tm:.0f} | {ratio:.2f} ({mark}) | <= {goal} | {mt:.1f} | {mm:.1f} |")
    print("\ntorch runs with torch.set_num_threads(1); numpy with its default BLAS threads.")
    return rows


if __name__ == "__main__":
    main()
