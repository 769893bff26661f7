"""One rank of the 2-rank gloo runs of tests/test_ddp.py (started by that test, not by pytest).

    python tests/ddp_worker.py OUT_PREFIX SCENARIO [SCENARIO ...]

Each scenario trains a small model for a few epochs on this rank, watched (or not, for the
"plain-" twin of a scenario), and its result is written as JSON to OUT_PREFIX.RANK.json:
the findings (code, severity, where, ranks) and a hash of the trained weights.
"""
import hashlib
import json
import os
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

import nndebug as nd

torch.set_num_threads(1)


def dataset(n=256):
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(n, 8, generator=generator)
    return TensorDataset(x, (x[:, 0] - x[:, 1] > 0).long())


def model_for(scenario, rank):
    torch.manual_seed(rank if scenario == "not-wrapped" else 0)
    layers = [torch.nn.Linear(8, 32)]
    if "bn" in scenario:
        layers.append(torch.nn.BatchNorm1d(32))
    layers += [torch.nn.ReLU(), torch.nn.Linear(32, 2)]
    return torch.nn.Sequential(*layers)


def train(scenario, rank, watched, epochs=3, early_exit_at=None, save_to=None, state=None):
    net = model_for(scenario, rank)
    wrapped = net if scenario in ("not-wrapped", "rank-stops-early") else \
        DDP(net, broadcast_buffers=scenario != "bn-buffers-not-broadcast")
    data = dataset()
    if scenario == "same-data":
        sampler = None
        loader = DataLoader(data, batch_size=16, shuffle=True,
                            generator=torch.Generator().manual_seed(1))
    else:
        sampler = DistributedSampler(data, shuffle=True, seed=1)
        loader = DataLoader(data, batch_size=16, sampler=sampler)
    opt = torch.optim.SGD(wrapped.parameters(), lr=0.05, momentum=0.9)
    mon = nd.watch(wrapped, opt, save_to=save_to) if watched else None
    if state is not None:             # a restart: the monitor continues the checkpoint's run
        mon.load_state_dict(state)
    step = 0
    for epoch in range(epochs):
        if sampler is not None and scenario != "no-set-epoch":
            sampler.set_epoch(epoch)
        batches = list(loader)
        micro = 2 if "accumulate" in scenario else 1
        for i in range(0, len(batches) - micro + 1, micro):
            if early_exit_at is not None and rank == 1 and step == early_exit_at:
                return mon, net          # this rank stops calling step(); the other goes on
            if scenario != "no-zero-grad":
                opt.zero_grad()
            losses = []
            for j in range(micro):
                x, y = batches[i + j]
                last = j == micro - 1
                never_sync = scenario == "accumulate-never-sync"
                if isinstance(wrapped, DDP) and (never_sync or not last):
                    with wrapped.no_sync():
                        loss = torch.nn.functional.cross_entropy(wrapped(x), y) / micro
                        loss.backward()
                else:
                    loss = torch.nn.functional.cross_entropy(wrapped(x), y) / micro
                    loss.backward()
                losses.append(loss.detach())
            opt.step()
            step += 1
            if mon is not None:
                mon.step(sum(losses))
    return mon, net


def weights_hash(net):
    digest = hashlib.sha256()
    for value in net.state_dict().values():
        digest.update(value.detach().numpy().tobytes())
    return digest.hexdigest()


def main():
    prefix, scenarios = sys.argv[1], sys.argv[2:]
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    results = {}
    for name in scenarios:
        watched = not name.startswith("plain-")
        scenario = name.removeprefix("plain-")
        early = 5 if scenario == "rank-stops-early" else None
        # "save-to": every rank is given the same save_to path (tests/test_ddp.py reads the files)
        save_to = os.path.join(os.path.dirname(prefix), "run.nndebug") \
            if scenario == "save-to" else None
        extra = {}
        if scenario == "resumed-same-data":    # one epoch, a checkpoint, a restart, one more
            first, _ = train("same-data", rank, True, epochs=1)
            state, before = first.state_dict(), first.run.ranks.exchanges
            first.close()
            mon, net = train("same-data", rank, True, epochs=1, state=state)
            extra["exchanges"] = [before, mon.run.ranks.exchanges, mon.run.ranks.same_batches]
        else:
            mon, net = train(scenario, rank, watched, early_exit_at=early, save_to=save_to)
        entry = {"weights": weights_hash(net), **extra}
        if mon is not None:
            mon.close()
            entry["losses"] = [float(v) for v in mon.run.loss_array()[1]]
            entry["findings"] = [[f.code, f.severity, f.where, f.evidence.get("ranks")]
                                 for f in mon.findings()]
            entry["report_has_text"] = bool(mon.report())
        results[name] = entry
        if early is not None:
            break                         # the group is out of step now: nothing else runs
    with open(f"{prefix}.{rank}.json", "w") as handle:
        json.dump(results, handle)
    if not any(n.endswith("rank-stops-early") for n in scenarios):
        dist.destroy_process_group()


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main()
