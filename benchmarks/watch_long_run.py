"""nndebug.watch on long runs: memory, analysis time and overhead as the run grows.

Healthy runs at watch's default settings (``max_history_mb=64``, the 1% time budget for
extra records), each configuration trained twice, in two fresh processes running side by side (so that the
machine's other load slows both alike), one thread each:

  plain     the training loop alone
  watched   the same loop under nndebug.watch(model, optimizer)

Models: a 3-layer MLP (32-64-64-4) at 1k, 10k and 100k steps (1M with ``--million``), and a
deep MLP (24 linear layers of width 256, ReLU) at 1k and 4k steps (20k with ``--million``); batch 64, SGD, a
learnable task (labels from a fixed random teacher), He initialisation. Printed, as a markdown table:

  train s plain / watched   wall time of the training loop, and the ratio
  RSS over plain            peak resident memory of the watched process minus that of the
                            plain one, both read right after training (MiB)
  records kept / history    detailed records in the history, and its accounted size (MiB)
  findings+report, plot     analysis time after training (s): findings() from scratch plus
                            report(), then plot() of the dashboard (matplotlib already
                            imported by a first, untimed plot)
  save                      mon.save(path): seconds and file size (MiB)

``--where MODEL:STEPS`` prints instead where the watched run's extra memory goes: the
resident memory (current and peak, MiB) of a plain and a watched process at the same points
(model built, ``watch()``, after the first recorded step, after step 4 where the one
dependency probe runs, at the end), and the same inside the first recorded step around the
monitor's whole-model operations (the weight snapshot, the batched differences, the norms).

``--instructions MODEL:STEPS ...`` counts the overhead in instructions instead of seconds, under
valgrind's cachegrind (the same code on the same input gives nearly the same count on a busy
machine and an idle one; the seconds of two side-by-side processes move by 10-30% on a
shared 2-core machine, more than a 5% goal). Three processes per row: the loop plain, the
loop watched (``close()`` and ``findings()`` included), and no loop at all; each first
imports the same modules and runs the same 5-step watched warm-up on a small model, so
that start-up and first-call costs cancel. Overhead = (watched - plain) / (plain - none).
About 50x slower than the loop itself (``--instructions mlp:1000`` takes a few minutes).
Which steps get an extra record depends on the clock (the 1% time budget), and valgrind
slows the two sides unequally: under it the budget bought 38 records in the first 1,000
MLP steps and 85 in 2,000, where the same run at full speed takes 11 and 12 (the judged
ones). So the watched row first trains once at full speed, keeps the steps of its extra
records, and the counted run replays exactly those (``ReplayedSchedule``): the count is that
of the run a user gets.

Run: python -m benchmarks.watch_long_run [--million] [--quick] [--jobs N]
(``--jobs``: configurations run side by side, two processes of one thread each per
configuration; use it on a machine with twice that many idle cores, or timings suffer.)
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

BATCH, POOL = 64, 32


def build(kind, seed=0):
    import torch
    torch.manual_seed(seed)
    if kind == "mlp":
        widths = [32, 64, 64]
    else:
        widths = [32] + [256] * 23
    layers = []
    for a, b in zip(widths, widths[1:]):
        layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers, torch.nn.Linear(widths[-1], 4))
    for module in model:
        if isinstance(module, torch.nn.Linear):   # He initialisation: a healthy deep ReLU net
            torch.nn.init.kaiming_normal_(module.weight, nonlinearity="relu")
            torch.nn.init.zeros_(module.bias)
    g = torch.Generator().manual_seed(seed)
    teacher = torch.randn(32, 4, generator=g)
    batches = []
    for _ in range(POOL):
        x = torch.randn(BATCH, 32, generator=g)
        batches.append((x, (x @ teacher).argmax(dim=1)))
    lr = 0.05 if kind == "mlp" else 0.01
    return model, torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9), batches


def train(model, opt, batches, loss_fn, steps, mon=None, start=0):
    """The loop every row trains: steps ``start`` to ``steps - 1`` over the batch pool."""
    for i in range(start, steps):
        x, y = batches[i % POOL]
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        if mon is not None:
            mon.step(loss)


def peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def worker(kind, steps, watched, budget=None):
    """One configuration in this process; prints one JSON line. ``budget``: max_history_mb
    (None: watch's default)."""
    import torch
    torch.set_num_threads(1)
    import nndebug as nd
    model, opt, batches = build(kind)
    loss_fn = torch.nn.CrossEntropyLoss()
    options = {} if budget is None else {"max_history_mb": budget}
    mon = nd.watch(model, opt, **options) if watched else None
    started = time.perf_counter()
    train(model, opt, batches, loss_fn, steps, mon)
    train_s = time.perf_counter() - started
    out = {"kind": kind, "steps": steps, "watched": watched, "train_s": train_s,
           "peak_rss_mib": peak_rss_mib()}
    if mon is not None:
        mon.close()
        out["records"] = len(mon.run.records)
        out["compactions"] = mon.run.compactions
        out["history_mib"] = mon.run.history_bytes() / 2 ** 20
        started = time.perf_counter()
        mon._findings_cache = None            # from scratch, as after a new step
        found = mon.findings()
        mon.report()
        out["analysis_s"] = time.perf_counter() - started
        out["codes"] = sorted({f.code for f in found if f.severity != "info"})
        with tempfile.TemporaryDirectory() as folder:
            mon.plot(os.path.join(folder, "first.png"))     # imports matplotlib: not timed
            started = time.perf_counter()
            mon.plot(os.path.join(folder, "dashboard.png"))
            out["plot_s"] = time.perf_counter() - started
            started = time.perf_counter()
            path = mon.save(os.path.join(folder, "run.nndebug"))
            out["save_s"] = time.perf_counter() - started
            out["file_mib"] = os.path.getsize(path) / 2 ** 20
    print(json.dumps(out), flush=True)


def replayed_schedule(schedule, extra_steps):
    """A copy of the monitor's schedule whose extra records come at ``extra_steps`` (those a
    run at full speed took), not from the clock; judged records, loss jumps and NaN
    escalation stay the schedule's own (they do not depend on time)."""
    import bisect
    from nndebug.monitor.schedule import EXTRA, Schedule

    class ReplayedSchedule(Schedule):
        def next_record(self, upcoming, interval, was_recorded, steps=1):
            # no durations: the budget never grants a record itself
            kind = super().next_record(upcoming, None, was_recorded, steps)
            return EXTRA if kind is None and upcoming in wanted else kind

        def first_possible_record(self, upcoming):
            first = super().first_possible_record(upcoming)
            later = bisect.bisect_right(extra, upcoming)
            return min(first, extra[later]) if later < len(extra) else first

    wanted = set(extra_steps)
    extra = sorted(wanted)
    replayed = ReplayedSchedule(schedule.every, schedule.overhead)
    replayed.__dict__.update(schedule.__dict__)
    return replayed


def instruction_worker(kind, steps, mode, extra_steps=None):
    """The loop of one row for ``count_instructions``: ``mode`` "plain", "watched" (its
    extra records at ``extra_steps``) or "none" (no loop: what the process costs around
    it), or "at-full-speed" (watched, not counted: prints the steps of its extra records)."""
    import torch
    torch.set_num_threads(1)
    import nndebug as nd
    warm_model, warm_opt, warm_batches = build("mlp", seed=1)     # the same in every mode
    loss_fn = torch.nn.CrossEntropyLoss()
    with nd.watch(warm_model, warm_opt) as warm:
        train(warm_model, warm_opt, warm_batches, loss_fn, 5, warm)
    warm.findings()
    model, opt, batches = build(kind)
    if mode == "none":
        return
    mon = nd.watch(model, opt) if mode != "plain" else None
    if mode == "watched":
        mon.schedule = replayed_schedule(mon.schedule, extra_steps or [])
    elif mode == "at-full-speed":
        taken = []
        from nndebug.monitor.sinks import Sink

        class ExtraSteps(Sink):
            def on_record(self, run, record, histograms):
                if not record.judged:
                    taken.append(record.step)
        mon.sinks.append(ExtraSteps())
    train(model, opt, batches, loss_fn, steps, mon)
    if mon is not None:
        mon.close()
        mon.findings()
    if mode == "at-full-speed":
        print(json.dumps(taken), flush=True)


def instruction_worker_command(kind, steps, mode, extra_steps=()):
    """The command line of one ``instruction_worker`` process, and its environment (one
    thread, a fixed hash seed: the same run executes the same instructions)."""
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0")
    return [sys.executable, "-m", "benchmarks.watch_long_run", "--instruction-worker", kind,
            str(steps), mode, json.dumps(list(extra_steps))], env


def extra_steps_at_full_speed(kind, steps):
    """The steps at which a watched run of this row, at full speed, took extra records."""
    command, env = instruction_worker_command(kind, steps, "at-full-speed")
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"the full-speed run of {kind} {steps} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def count_instructions(kind, steps, mode, extra_steps=()):
    """Instructions a process running ``instruction_worker`` executes (valgrind)."""
    import re
    command, env = instruction_worker_command(kind, steps, mode, extra_steps)
    done = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no",
                           "--cachegrind-out-file=/dev/null", *command],
                          capture_output=True, text=True, env=env)
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise RuntimeError(f"valgrind failed on {kind} {steps} {mode}:\n{done.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def instruction_table(rows):
    """The overhead of each ``MODEL:STEPS`` row in instructions (module doc)."""
    import shutil
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (apt-get install valgrind): nothing measured")
        return []
    jobs = [(kind, int(steps), mode) for kind, steps in (row.split(":") for row in rows)
            for mode in ("plain", "watched", "none")]
    extras = {(kind, steps): extra_steps_at_full_speed(kind, steps)
              for kind, steps, mode in jobs if mode == "watched"}
    with ThreadPoolExecutor(2) as pool:
        counts = dict(zip(jobs, pool.map(
            lambda job: count_instructions(*job, extras.get(job[:2], ())), jobs)))
    names = {"mlp": "MLP 32-64-64-4", "deep": "24-layer MLP, width 256"}
    print("| model | steps | extra records (at full speed) | loop plain (M instructions) | "
          "watched, findings included | overhead |")
    print("|---|---|---|---|---|---|")
    found = []
    for kind, steps in {(k, s) for k, s, _ in jobs}:
        plain = counts[kind, steps, "plain"] - counts[kind, steps, "none"]
        watched = counts[kind, steps, "watched"] - counts[kind, steps, "none"]
        found.append((kind, steps, plain, watched))
    for kind, steps, plain, watched in sorted(found):
        print(f"| {names[kind]} | {steps:,} | {len(extras[kind, steps])} | {plain / 1e6:,.0f} | "
              f"{watched / 1e6:,.0f} | {100 * (watched / plain - 1):+.1f}% |")
    return found


def current_rss_mib():
    """Resident memory now (Linux /proc; the peak where that is missing)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmRSS"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return peak_rss_mib()


def where_worker(kind, steps, watched):
    """The resident memory of one run at fixed points; prints one JSON line."""
    import torch
    torch.set_num_threads(1)
    import nndebug as nd
    inside = []
    if watched:
        import nndebug.monitor  # noqa: F401  (the import's cost shows at "watch()")
        from nndebug.adapters.torch_adapter import TorchAdapter

        def measured(name):
            original = getattr(TorchAdapter, name)

            def call(self, *args, **kwargs):
                before = current_rss_mib()
                out = original(self, *args, **kwargs)
                if len(inside) < 4:       # the first recorded step (and the next arm)
                    inside.append([name, before, current_rss_mib(), peak_rss_mib()])
                return out
            setattr(TorchAdapter, name, call)
        for name in ("copies_into", "differences", "subtract_in_place", "norms"):
            measured(name)
    model, opt, batches = build(kind)
    loss_fn = torch.nn.CrossEntropyLoss()
    points = [["model built", current_rss_mib(), peak_rss_mib()]]
    mon = nd.watch(model, opt) if watched else None
    points.append(["watch()", current_rss_mib(), peak_rss_mib()])
    done = 0
    for last in (0, 4):              # the first recorded step; step 4, where the probe runs
        if last < steps:
            train(model, opt, batches, loss_fn, last + 1, mon, start=done)
            done = last + 1
            points.append([f"after step {last}", current_rss_mib(), peak_rss_mib()])
    train(model, opt, batches, loss_fn, steps, mon, start=done)
    points.append([f"after step {steps - 1}", current_rss_mib(), peak_rss_mib()])
    print(json.dumps({"points": points, "inside": inside,
                      "history_mib": mon.run.history_bytes() / 2 ** 20 if mon else 0}), flush=True)


def where_memory_goes(kind, steps):
    """Print the plain and watched runs' memory side by side (see the module doc)."""
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")

    def one(watched):
        done = subprocess.run([sys.executable, "-m", "benchmarks.watch_long_run", "--where-worker",
                               kind, str(steps), str(int(watched))],
                              capture_output=True, text=True, env=env)
        if done.returncode != 0:
            raise RuntimeError(f"worker failed:\n{done.stderr[-2000:]}")
        return json.loads(done.stdout.strip().splitlines()[-1])
    plain, watched = one(False), one(True)
    print(f"{kind} model, {steps} steps, resident memory (MiB): now / peak")
    print("| point | plain | watched | watched - plain (now, peak) |")
    print("|---|---|---|---|")
    for (name, a, b), (_, c, d) in zip(plain["points"], watched["points"]):
        print(f"| {name} | {a:.1f} / {b:.1f} | {c:.1f} / {d:.1f} | {c - a:+.1f}, {d - b:+.1f} |")
    print(f"\nhistory accounted at the end: {watched['history_mib']:.1f} MiB")
    print("\ninside the watched run's first recorded step (rss before -> after, peak after):")
    for name, before, after, peak in watched["inside"]:
        print(f"  adapter.{name:12s} {before:7.1f} -> {after:7.1f}  (peak {peak:.1f}, "
              f"{after - before:+.1f})")


def run_worker(kind, steps, budget, watched):
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-m", "benchmarks.watch_long_run", "--worker", kind,
                           str(steps), str(int(watched)), str(budget or "default")],
                          capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"worker {kind} {steps} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def configurations(args):
    """(model, steps, max_history_mb or None for the default)."""
    if args.quick:
        return [("mlp", 1000, None), ("mlp", 5000, None), ("mlp", 5000, 0.05), ("deep", 300, None)]
    found = [("mlp", 1000, None), ("mlp", 10_000, None), ("mlp", 100_000, None),
             ("mlp", 100_000, 0.5)]          # a budget small enough to make it thin
    if args.million:
        found.append(("mlp", 1_000_000, None))
    return found + [("deep", 1000, None), ("deep", 4000, None)] + \
        ([("deep", 20_000, None)] if args.million else [])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--million", action="store_true", help="also the MLP at 1M steps and the deep MLP at 20k")
    parser.add_argument("--quick", action="store_true", help="short runs (a smoke test)")
    parser.add_argument("--jobs", type=int, default=1, help="configurations run side by side")
    parser.add_argument("--rows", nargs="*", default=None, metavar="MODEL:STEPS",
                        help="only these rows, e.g. mlp:1000000 deep:4000")
    parser.add_argument("--where", metavar="MODEL:STEPS",
                        help="where the watched run's extra memory goes, e.g. deep:300")
    parser.add_argument("--instructions", nargs="+", metavar="MODEL:STEPS",
                        help="the overhead of these rows in instructions (valgrind), e.g. mlp:1000")
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--instruction-worker", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--where-worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.instruction_worker:
        kind, steps, mode, extra_steps = args.instruction_worker
        return instruction_worker(kind, int(steps), mode, json.loads(extra_steps))
    if args.instructions:
        return instruction_table(args.instructions)
    if args.where_worker:
        kind, steps, watched = args.where_worker
        return where_worker(kind, int(steps), bool(int(watched)))
    if args.where:
        kind, steps = args.where.split(":")
        return where_memory_goes(kind, int(steps))
    if args.worker:
        kind, steps, watched, budget = args.worker
        return worker(kind, int(steps), bool(int(watched)),
                      None if budget == "default" else float(budget))
    # the plain and the watched run of a configuration train at the same time, side by
    # side, so that whatever else loads the machine slows both alike
    def pair(configuration):
        with ThreadPoolExecutor(2) as both:
            return list(both.map(lambda watched: run_worker(*configuration, watched), (False, True)))
    found = [c for c in configurations(args)
             if args.rows is None or f"{c[0]}:{c[1]}" in args.rows]
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        pairs = dict(zip(found, pool.map(pair, found)))
    results = {(*configuration, watched): pairs[configuration][watched]
               for configuration in found for watched in (0, 1)}
    print("| model | steps | train s plain | watched | ratio | RSS over plain (MiB) | records kept "
          "(compactions) | history (MiB) | findings+report (s) | plot (s) | save (s, MiB) "
          "| warnings |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    names = {"mlp": "MLP 32-64-64-4", "deep": "24-layer MLP, width 256"}
    for kind, steps, budget in found:
        plain, watched = results[(kind, steps, budget, 0)], results[(kind, steps, budget, 1)]
        name = names[kind] + ("" if budget is None else f", max_history_mb={budget}")
        print(f"| {name} | {steps:,} | {plain['train_s']:.1f} | {watched['train_s']:.1f} "
              f"| {watched['train_s'] / plain['train_s']:.2f} "
              f"| {watched['peak_rss_mib'] - plain['peak_rss_mib']:+.0f} | {watched['records']:,} "
              f"({watched['compactions']}) "
              f"| {watched['history_mib']:.1f} | {watched['analysis_s']:.2f} "
              f"| {watched['plot_s']:.2f} | {watched['save_s']:.2f}, {watched['file_mib']:.1f} "
              f"| {', '.join(watched['codes']) or '-'} |")


if __name__ == "__main__":
    main()
