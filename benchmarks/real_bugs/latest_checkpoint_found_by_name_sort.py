"""A preemptible job resumes from "the latest checkpoint", found as the last name of
``sorted()`` over the files ``iter-{iter_num}-ckpt.pth``. Names sort as text, not numbers:
once iter-120 exists, "iter-80-ckpt.pth" sorts after "iter-120-ckpt.pth" (and after
"iter-160", "iter-200", ...), so every later resume loads iteration 80 again, trains 80 ->
120, saves iter-120 over itself and is stopped. The job keeps running and logging a loss,
but the model never gets past 120 iterations of training.

Reported: "Fix resuming checkpoint path bug" - https://github.com/Lightning-AI/litgpt/pull/661
(merged; "resuming takes the last path of the sorted list. However, the sorted list may not
return a list sorted in ascending `iter_num` ... Thus resuming will not take the latest
checkpoint in this case"; the fix sorts by the iteration number parsed from the name).
Here: the 8x8 digits (600 training rows, 997 held out), a 64-64-10 MLP under SGD (lr 0.05,
batches of 32), a job stopped every 40 iterations and resumed from its checkpoint (model,
optimizer, iter_num and the monitor's state, written to memory as ``torch.save`` writes a
file) nine times over - a budget of 360 iterations; the batch of an iteration is fixed by its
number, as a resumed sampler would give it. Fix: pick the checkpoint with the highest
iter_num (``max(paths, key=iteration)``).

**Measured** (held-out accuracy of the job's final model, 997 held-out digits): seed 0,
0.783 for the bug (trained to iteration 120) against 0.921 for the fixed twin (iteration
360); every seed shifted by 1000, 0.632 against 0.901.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._checkpointing import evaluate, from_bytes, splits, to_bytes
from benchmarks.real_bugs._common import index_batches, mlp

TITLE = "Fix resuming checkpoint path bug"
LINK = "https://github.com/Lightning-AI/litgpt/pull/661"
EXPECTED = ("DATA_ORDER_REPEATS",)
STEPS = 360
SAVE_EVERY = 40          # each job trains 40 iterations, saves, and is preempted
BATCH = 32
LR = 0.05


def iteration(path):
    return int(path.split("-")[1])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x, y), _, (x_test, y_test) = splits(seed=0)
    schedule = list(index_batches(len(x), steps, BATCH,
                                  seed=int(torch.randint(10**6, ()))))
    loss_fn = nn.CrossEntropyLoss()
    out_dir = {}            # the checkpoint files: name -> bytes
    mon, model = None, None
    for _ in range(max(1, steps // SAVE_EVERY)):          # the job's budget of restarts
        model = mlp()
        optimizer = torch.optim.SGD(model.parameters(), lr=LR)
        iter_num, state = 0, None
        if out_dir:
            paths = sorted(out_dir)
            resume = max(paths, key=iteration) if fixed else paths[-1]   # BUG: text order
            state = from_bytes(out_dir[resume])
            model.load_state_dict(state["model"])
            optimizer.load_state_dict(state["optimizer"])
            iter_num = state["iter_num"]
        if iter_num >= steps:
            break
        with nd.watch(model, optimizer, **watch) as mon:
            if state is not None:
                mon.load_state_dict(state["nndebug"])
            for _ in range(SAVE_EVERY):
                index = schedule[iter_num]
                optimizer.zero_grad()
                loss = loss_fn(model(x[index]), y[index])
                loss.backward()
                optimizer.step()
                mon.step(loss)
                iter_num += 1
                if iter_num == steps:
                    break
            out_dir[f"iter-{iter_num}-ckpt.pth"] = to_bytes(
                {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                 "iter_num": iter_num, "nndebug": mon.state_dict()})
    mon.saved_epoch = iter_num
    mon.held_out_accuracy = evaluate(model, x_test, y_test)[1]
    return mon
