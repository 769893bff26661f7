"""nndebug.watch under DistributedDataParallel, one process per rank:

    torchrun --nproc_per_node 2 examples/ddp_watch.py            # a healthy run: silent
    torchrun --nproc_per_node 2 examples/ddp_watch.py --bug same-data
    torchrun --nproc_per_node 2 examples/ddp_watch.py --bug no-set-epoch
    torchrun --nproc_per_node 2 examples/ddp_watch.py --bug not-wrapped

The watch call is the same as on one process: it finds the process group itself, watches
the model inside the DDP wrapper, and on agreed steps the ranks compare notes in one small
exchange. Every rank's ``mon.findings()`` is the merged list; here rank 0 prints the report.
Runs on the CPU with the gloo backend (on GPUs use backend "nccl": the exchange still uses a
small gloo group of its own on the host).
"""
import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

import nndebug as nd

BUGS = ("same-data", "no-set-epoch", "not-wrapped")


def make_data(n=512, seed=0):
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 10, generator=generator)
    y = (x[:, 0] + x[:, 1] * x[:, 2] > 0).long()
    return TensorDataset(x, y)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bug", choices=BUGS, default=None)
    parser.add_argument("--epochs", type=int, default=4)
    args = parser.parse_args()
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(0 if args.bug != "not-wrapped" else rank)   # BUG (not-wrapped): per-rank init
    model = torch.nn.Sequential(torch.nn.Linear(10, 64), torch.nn.ReLU(), torch.nn.Linear(64, 2))
    if args.bug != "not-wrapped":
        model = DistributedDataParallel(model)
    dataset = make_data()
    if args.bug == "same-data":                                   # BUG: no DistributedSampler
        sampler = None
        loader = DataLoader(dataset, batch_size=32, shuffle=True,
                            generator=torch.Generator().manual_seed(1))
    else:
        sampler = DistributedSampler(dataset, shuffle=True, seed=1)
        loader = DataLoader(dataset, batch_size=32, sampler=sampler)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    with nd.watch(model, optimizer=opt) as mon:
        for epoch in range(args.epochs):
            if sampler is not None and args.bug != "no-set-epoch":
                sampler.set_epoch(epoch)                          # (the no-set-epoch bug skips it)
            for x, y in loader:
                opt.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(x), y)
                loss.backward()
                opt.step()
                mon.step(loss)
    if rank == 0:
        print(mon.report())
    problems = [f for f in mon.findings() if f.severity != "info"]
    dist.destroy_process_group()
    return 1 if problems else 0


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    raise SystemExit(main())
