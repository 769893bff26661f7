"""A preemptible Accelerate job that checkpoints with ``accelerator.save_state`` and, on
every restart, restores the model, optimizer and RNG with ``accelerator.load_state`` - but
starts its data loop again at epoch 0, batch 0. With a seedable sampler (the order a
function of the epoch, as Accelerate's ``use_seedable_sampler`` makes it) every restart
replays the same first batches of epoch 0: a job restarted every few steps trains on the
same few hundred rows again and again and never sees the rest of the data. The training
loss falls nicely (it is the loss on rows the model has memorised); nothing errors.

Reported: "Bug on resume training on single GPU and multiple GPUs" -
https://github.com/huggingface/accelerate/issues/685 ("When loading checkpoint with
accelerator.load_state() for resuming training, the DataLoader will sample data from the
beginning, i.e, from epoch 0 step 0 ... the codes can only train a small part of the whole
data when resuming many times"; the maintainers' fix to the examples: work out the epoch
and the step inside it from the checkpoint, start the loop there and skip the batches
already trained - later ``accelerator.skip_first_batches``). Here the digits MLP, SGD with
momentum, ``Accelerator(cpu=True, gradient_accumulation_steps=4)`` with a seedable sampler,
micro-batches of 16 (75 an epoch), the job restarted every 2 optimizer steps (8
micro-batches: 128 of the 1,200 training rows; "resuming many times", scaled down to a
run of 240 steps). Fix: resume at the checkpoint's epoch
(``set_epoch``) and skip the micro-batches of it already trained.

Measured (240 optimizer steps, held-out accuracy on 597 digits): seed 0: 0.896 with the
bug against 0.950 for the fixed twin; seeds shifted by 1000: 0.926 against 0.973. (Restarted
every 5 steps, 320 rows, 120 steps, the harm was gone: 0.931 against 0.930.)
"""
import shutil
import tempfile

import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._acc150 import (accuracy, digits_mlp, digits_split,
                                          fresh_accelerator, loader)

TITLE = "Bug on resume training on single GPU and multiple GPUs"
LINK = "https://github.com/huggingface/accelerate/issues/685"
EXPECTED = ("DATA_ORDER_REPEATS",)
STEPS = 240
ACCUMULATE, MICRO, LR = 4, 16, 0.05
SEGMENT = 2           # optimizer steps between the job's restarts


def _from(train, start):
    """Micro-batches from the ``start``-th one of the run on (epochs from ``set_epoch``)."""
    per_epoch = len(train)
    epoch, offset = divmod(start, per_epoch)
    while True:
        train.set_epoch(epoch)
        for index, batch in enumerate(train):
            if index >= offset:
                yield batch
        epoch, offset = epoch + 1, 0


def run(fixed=False, steps=STEPS, **watch):
    from accelerate.utils import DataLoaderConfiguration
    torch.manual_seed(0)
    x, y, x_held, y_held = digits_split(0)
    accelerator = fresh_accelerator(
        gradient_accumulation_steps=ACCUMULATE,
        dataloader_config=DataLoaderConfiguration(use_seedable_sampler=True))
    model = digits_mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
    model, optimizer, train = accelerator.prepare(model, optimizer, loader(x, y, MICRO))
    folder = tempfile.mkdtemp(prefix="acc150_")
    trained, done = 0, 0          # micro-batches trained, optimizer steps taken
    try:
        with nd.watch(model, optimizer, **watch) as mon:
            while done < steps:
                if done:                              # the job restarts from its checkpoint
                    accelerator.load_state(folder)
                # BUG: a restarted loop begins at epoch 0, batch 0 (fixed: where it stopped)
                start = trained if fixed else 0
                taken = 0
                for xb, yb in _from(train, start):
                    with accelerator.accumulate(model):
                        loss = F.cross_entropy(model(xb), yb)
                        accelerator.backward(loss)
                        optimizer.step()
                        optimizer.zero_grad()
                    trained += 1
                    if accelerator.sync_gradients:
                        mon.step(loss)
                        done, taken = done + 1, taken + 1
                        if taken == SEGMENT or done == steps:
                            break
                accelerator.save_state(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    return mon
