"""What does nndebug.watch cost? Side by side, in one run, on small CPU models.

For each model (the digits MLP, a small CNN, a 12-block residual MLP) the same training
loop runs in four ways, interleaved round by round so that machine noise hits them all
alike:

  plain          the loop alone
  plain again    the same plain loop a second time: an A/A control, the noise floor
  watch          nndebug.watch(model, optimizer) with its defaults (time-budgeted sampling)
  watch-every    nndebug.watch(..., overhead=None): every step recorded in detail
  naive hooks    the lesson's approach: a forward hook on every layer computing mean, std
                 and the share of zeros with .item() each, and every parameter's gradient
                 norm with .item() after backward (one host sync per statistic)

Printed: a markdown table of the median CPU time per step and the ratio to the plain loop.
Run: python -m benchmarks watch [--quick]   (torch uses one thread, as in the zoo: small
models run fastest that way and the timings are steadier).
"""
import statistics
import sys
import time


def _digits(images=False):
    from nndebug.zoo.common import digits
    return digits(images=images)


def _models():
    from torch import nn

    from nndebug.zoo.torch_cases.healthy_residual import Block   # pre-norm residual MLP block

    yield "digits MLP (64-64-10)", lambda: nn.Sequential(nn.Linear(64, 64), nn.ReLU(),
                                                         nn.Linear(64, 10)), False
    yield "small CNN (2 conv)", lambda: nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64, 10)), True
    yield "residual MLP (12 blocks)", lambda: nn.Sequential(
        nn.Linear(64, 64), *[Block(64) for _ in range(12)], nn.Linear(64, 10)), False


class NaiveHooks:
    """The lesson's style: per-layer forward hooks and per-parameter norms, .item() each."""

    def __init__(self, model):
        self.model, self.stats, self.handles = model, [], []
        for module in model.modules():
            if not list(module.children()):
                self.handles.append(module.register_forward_hook(self._hook))

    def _hook(self, module, inputs, output):
        out = output.detach()
        self.stats.append((out.mean().item(), out.std().item(), (out == 0).float().mean().item()))

    def after_backward(self):
        self.stats.append([p.grad.norm().item() for p in self.model.parameters()
                           if p.grad is not None])

    def close(self):
        for handle in self.handles:
            handle.remove()


def _train(model, optimizer, batches, steps, mode):
    import torch
    import nndebug as nd
    loss_fn = torch.nn.functional.cross_entropy
    monitor = naive = None
    if mode == "watch":
        monitor = nd.watch(model, optimizer)
    elif mode == "watch-every":
        monitor = nd.watch(model, optimizer, overhead=None)
    elif mode == "naive hooks":
        naive = NaiveHooks(model)
    started = CLOCK()
    for step in range(steps):
        xb, yb = batches[step % len(batches)]
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        if naive is not None:
            naive.after_backward()
        optimizer.step()
        if monitor is not None:
            monitor.step(loss)
        elif naive is not None:
            naive.stats.append(loss.item())
    if monitor is not None:
        monitor.close()
    if naive is not None:
        naive.close()
    elapsed = CLOCK() - started
    records = None if monitor is None else \
        (monitor.n_records, sum(1 for r in monitor.run.records if r.judged))
    return elapsed / steps, records


MODES = ["plain", "plain again", "watch", "watch-every", "naive hooks"]
# CPU time of this process: on a shared machine other programs stretch wall-clock time by
# tens of percent from one second to the next, but not the CPU time this process uses
# (torch runs on one thread here, so CPU time is the time the loop takes on an idle machine)
CLOCK = time.process_time


def measure(name, make_model, images, steps, rounds, batch_size=64):
    """Per mode: (median ms/step, median ratio to the plain loop of the same round, records).

    Each round runs every mode once, in a rotating order, each for ``steps`` steps with a
    fresh monitor; the ratio is taken within the round (paired), so that slow phases of a
    busy machine cancel out.
    """
    import torch
    x, y = _digits(images=images)
    x, y = torch.from_numpy(x), torch.from_numpy(y)
    batches = [(x[i:i + batch_size], y[i:i + batch_size])
               for i in range(0, len(x) - batch_size + 1, batch_size)]
    # one model and optimizer for every mode: watch does not change training, and separate
    # copies differ in speed by several percent on their own (memory placement)
    torch.manual_seed(0)
    model = make_model()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for mode in MODES:
        _train(model, optimizer, batches, 10, mode)   # warm-up
    times = {mode: [] for mode in MODES}
    ratios = {mode: [] for mode in MODES}
    records = {mode: [] for mode in MODES}
    for round_index in range(rounds):
        order = MODES[round_index % len(MODES):] + MODES[:round_index % len(MODES)]
        this_round = {}
        for mode in order:
            this_round[mode], n_records = _train(model, optimizer, batches, steps, mode)
            records[mode].append(n_records)
        for mode in MODES:
            times[mode].append(this_round[mode])
            ratios[mode].append(this_round[mode] / this_round["plain"])
    return ({mode: statistics.median(v) for mode, v in times.items()},
            {mode: statistics.median(v) for mode, v in ratios.items()},
            {mode: records[mode][-1] for mode in MODES})


def main(argv=None):
    import torch
    argv = sys.argv[1:] if argv is None else argv
    quick = "--quick" in argv
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        rows = []
        # long enough that the monitor reaches its steady state: steps 0, 1, 2, 4, 8, 16, ...
        # are always recorded (log-spaced coverage of the early phase), which would dominate
        # a run of a few dozen steps (~9 records in 200 steps, ~11 in 1000)
        settings = {"digits MLP (64-64-10)": (1000, 15), "small CNN (2 conv)": (600, 9),
                    "residual MLP (12 blocks)": (400, 5)}
        for name, make_model, images in _models():
            steps, rounds = settings[name]
            if quick:
                steps, rounds = max(60, steps // 3), 3
            median, ratio, records = measure(name, make_model, images, steps, rounds)
            rows.append((name, steps, median, ratio, records))
            print(f"  measured {name}: " + ", ".join(f"{m} {median[m] * 1e3:.2f} ms "
                                                    f"({ratio[m]:.2f}x)" for m in MODES),
                  file=sys.stderr)
    finally:
        torch.set_num_threads(threads)
    print("| model | steps/run | plain (CPU ms/step) | plain again (noise floor) | watch (default) "
          "| watch, every step | naive .item() hooks |")
    print("|---|---|---|---|---|---|---|")
    for name, steps, median, ratio, records in rows:
        cell = lambda m: f"{median[m] * 1e3:.2f} ms ({ratio[m]:.2f}x)"
        print(f"| {name} | {steps} | {median['plain'] * 1e3:.2f} | {ratio['plain again']:.2f}x | "
              f"{cell('watch')}, "
              f"{records['watch'][0]} recorded ({records['watch'][1]} judged) | "
              f"{cell('watch-every')} | {cell('naive hooks')} |")
    print("\nRatios: median over rounds of (CPU time of the mode / CPU time of the plain loop "
          "in the same round), all modes interleaved in one process, one model. `watch` records "
          "the loss every step and detailed statistics on steps 0, 1, 2, 4, 8, 16, ... (the "
          "judged steps, the only ones the rules read) and as often as its 1% time budget "
          "allows; `watch, every step` shows the cost of a detailed record at every step (one "
          "host sync each).")
    return rows


if __name__ == "__main__":
    main()
