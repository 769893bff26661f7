"""What does nndebug.watch cost on a DistributedDataParallel step? 2 ranks, gloo, CPU.

The benchmark starts two processes (ranks) on 127.0.0.1. In each, the same DDP training
loop runs in three ways, interleaved round by round so that machine noise hits them alike:

  plain          the loop alone
  plain again    the plain loop a second time: an A/A control, the noise floor
  watch          nndebug.watch(ddp_model, optimizer) with its defaults: the rank exchange
                 on agreed steps (0, 1, 2, 4, 6, 8, ... and every 50th), its own gloo group

Wall-clock time per step (the ranks wait for each other in DDP's all-reduce, so CPU time
would not show communication), median over rounds of the ratio to the plain loop of the
same round, printed by rank 0 as a markdown table.
Run: python -m benchmarks ddp [--quick]
"""
import os
import socket
import statistics
import subprocess
import sys
import time

MODES = ["plain", "plain again", "watch"]


def _models():
    from torch import nn
    yield "MLP 64-256-256-10", lambda: nn.Sequential(
        nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
    yield "MLP 64-1024x3-10", lambda: nn.Sequential(
        nn.Linear(64, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(),
        nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10))


def _train(model, optimizer, batches, steps, mode):
    import torch
    import nndebug as nd
    monitor = nd.watch(model, optimizer) if mode == "watch" else None
    started = time.perf_counter()
    for step in range(steps):
        x, y = batches[step % len(batches)]
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        if monitor is not None:
            monitor.step(loss)
    if monitor is not None:
        monitor.close()
    return (time.perf_counter() - started) / steps


def rank_main(steps, rounds):
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    generator = torch.Generator().manual_seed(rank)
    batches = [(torch.randn(64, 64, generator=generator),
                torch.randint(0, 10, (64,), generator=generator)) for _ in range(16)]
    rows = []
    for name, make in _models():
        torch.manual_seed(0)
        model = DistributedDataParallel(make())
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        for mode in MODES:
            _train(model, optimizer, batches, 10, mode)            # warm-up
        ratios = {m: [] for m in MODES}
        times = {m: [] for m in MODES}
        for r in range(rounds):
            order = MODES[r % len(MODES):] + MODES[:r % len(MODES)]
            this = {mode: _train(model, optimizer, batches, steps, mode) for mode in order}
            for mode in MODES:
                times[mode].append(this[mode])
                ratios[mode].append(this[mode] / this["plain"])
        rows.append((name, {m: statistics.median(v) for m, v in times.items()},
                     {m: statistics.median(v) for m, v in ratios.items()}))
    if rank == 0:
        print(f"| model (2 ranks, gloo, CPU) | steps/run | plain (ms/step) | plain again "
              f"(noise floor) | watch (default) |")
        print("|---|---|---|---|---|")
        for name, median, ratio in rows:
            print(f"| {name} | {steps} | {median['plain'] * 1e3:.2f} | "
                  f"{ratio['plain again']:.2f}x | {median['watch'] * 1e3:.2f} ms "
                  f"({ratio['watch']:.2f}x) |")
        print("\nRatios: median over interleaved rounds of (wall time of the mode / wall time of "
              "the plain loop in the same round), on rank 0.")
    dist.destroy_process_group()


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    quick = "--quick" in argv
    steps, rounds = (100, 3) if quick else (400, 7)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    procs = []
    for rank in range(2):
        env = {**os.environ, "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port),
               "RANK": str(rank), "WORLD_SIZE": "2", "OMP_NUM_THREADS": "1",
               "PYTHONPATH": root}
        procs.append(subprocess.Popen(
            [sys.executable, "-c", f"from benchmarks.bench_ddp import rank_main; "
                                   f"rank_main({steps}, {rounds})"], env=env))
    try:
        for p in procs:
            p.wait(timeout=1800)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()


if __name__ == "__main__":
    main()
