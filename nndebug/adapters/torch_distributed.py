"""torch.distributed, for the monitor: is this a multi-rank run, and one small exchange.

The only file of nndebug that knows torch.distributed. Three jobs:

- ``unwrap(model)``: a DistributedDataParallel (or DataParallel) wrapper trains its
  ``.module``; the monitor watches that, so findings name ``fc1.weight``, not
  ``module.fc1.weight``.
- ``active_group(group)``: the process group of a run with more than one rank, or None
  (no process group initialised: a single process; nothing here applies).
- ``RankExchange``: every rank contributes one row of float64 numbers and receives every
  rank's row (an ``all_gather`` of a few hundred bytes). It runs on a process group of its
  own, on the gloo backend and host tensors: it never queues behind the training's NCCL
  collectives, and it has its own timeout.

No hang, ever: ranks first agree through the rendezvous store, with a short timeout, that
every rank is watching (``join``); a rank that watches alone just gets no exchange. After
that, an exchange that times out or finds a rank gone raises ``ExchangeError`` and the
monitor stops exchanging (each rank keeps its own findings).
"""
import datetime
import itertools
import os
import sys
import time

import numpy as np

WRAPPERS = {"DistributedDataParallel", "DataParallel"}
JOIN_TIMEOUT_S = 20.0         # [design] how long watch() waits for the other ranks to watch too
EXCHANGE_TIMEOUT_S = 60.0     # [design] how long one exchange may wait for a slower rank
                              # (NNDEBUG_EXCHANGE_TIMEOUT_S overrides both, e.g. in tests)
_watch_counter = itertools.count()   # the n-th watch() of this process meets the others' n-th


class ExchangeError(RuntimeError):
    """The ranks could not exchange (a rank stopped calling step(), left, or timed out)."""


def unwrap(model):
    """The module a data-parallel wrapper trains, else the model itself."""
    if type(model).__name__ in WRAPPERS and hasattr(model, "module"):
        return model.module
    return model


def unwrap_optimizer(optimizer):
    """The optimizer a wrapper steps, else the optimizer itself. Accelerate's
    ``AcceleratedOptimizer`` (what ``Accelerator.prepare`` returns) subclasses torch's
    ``Optimizer`` without running its ``__init__``: it has no hooks of its own, and
    registering one raised AttributeError, so a watched Accelerate loop recorded nothing in
    detail (real-bug batch 150). Its ``step()`` calls the inner optimizer's, whose hooks
    fire; the wrapper's own attribute ``optimizer`` is followed while the object has no hook
    tables of torch's."""
    for _ in range(4):              # wrappers of wrappers, a few deep at most
        inner = getattr(optimizer, "optimizer", None)
        own = getattr(optimizer, "__dict__", {})
        if inner is None or inner is optimizer or "_optimizer_step_post_hooks" in own or \
                not hasattr(inner, "param_groups"):
            return optimizer
        optimizer = inner
    return optimizer


def active_group(group=None):
    """The process group of this run when it has more than one rank, else None."""
    if group is None and "torch.distributed" not in sys.modules:
        return None                   # torch.distributed was never imported: one process
    import torch.distributed as dist
    if not (dist.is_available() and dist.is_initialized()):
        return None
    group = dist.group.WORLD if group is None else group
    return group if dist.get_world_size(group) > 1 else None


def rank_of(group):
    """(this process's rank in ``group``, the group's size)."""
    import torch.distributed as dist
    return dist.get_rank(group), dist.get_world_size(group)


class RankExchange:
    """One ``all_gather`` of a float64 row per call, on a gloo group of its own."""

    def __init__(self, group, *, join_timeout_s=None, exchange_timeout_s=None):
        import torch.distributed as dist
        override = os.environ.get("NNDEBUG_EXCHANGE_TIMEOUT_S")
        join_timeout_s = join_timeout_s or float(override or JOIN_TIMEOUT_S)
        exchange_timeout_s = exchange_timeout_s or float(override or EXCHANGE_TIMEOUT_S)
        self.dist = dist
        self.rank = dist.get_rank(group)
        self.world_size = dist.get_world_size(group)
        self.backend = str(dist.get_backend(group))
        self.group = None
        if not self._everyone_joined(group, join_timeout_s):
            raise ExchangeError(f"not every rank called nndebug.watch within {join_timeout_s:.0f} s; "
                                "this rank is watched on its own")
        ranks = dist.get_process_group_ranks(group)
        self.group = dist.new_group(ranks=ranks, backend="gloo",
                                    timeout=datetime.timedelta(seconds=exchange_timeout_s))

    def _everyone_joined(self, group, timeout_s):
        """All ranks of ``group`` agree, through the store, that they are all watching.

        Each rank adds one to a counter; the first rank to see it complete writes "go", a
        rank that gives up first writes "abort" (compare_set: the first writer wins), and
        every rank follows what was written, so all of them create the exchange group or
        none does."""
        from torch.distributed import distributed_c10d
        store = distributed_c10d._get_default_store()
        members = "-".join(map(str, self.dist.get_process_group_ranks(group)))
        key = f"nndebug/watch/{next(_watch_counter)}/{members}"
        store.add(key, 1)
        deadline = time.monotonic() + timeout_s
        decision = None
        while decision is None:
            if int(store.add(key, 0)) >= self.world_size:
                decision = store.compare_set(key + "/state", "", "go")
            elif time.monotonic() > deadline:
                decision = store.compare_set(key + "/state", "", "abort")
            else:
                time.sleep(0.005)
        return bytes(decision) == b"go"

    def all_gather(self, row):
        """Every rank's row, as a (world_size, len(row)) float64 array."""
        import torch
        mine = torch.from_numpy(np.ascontiguousarray(row, dtype=np.float64))
        gathered = [torch.empty_like(mine) for _ in range(self.world_size)]
        try:
            self.dist.all_gather(gathered, mine, group=self.group)
        except Exception as error:    # timeout, a rank gone: stop exchanging, never hang
            raise ExchangeError(f"a rank did not take part in the exchange ({error})") from None
        return torch.stack(gathered).numpy()


def checksums(tensors):
    """One number per tensor (its norm, plus a mixed-in plain sum: two fused reductions, no
    copy of the tensor), computed where the tensors live and copied to the host together:
    equal tensors give equal numbers, replicas that drifted apart do not."""
    import torch
    if not tensors:
        return np.zeros(0)
    with torch.no_grad():
        sums = torch.stack([torch.linalg.vector_norm(t.detach()).double() + 0.6180339887498949 *
                            t.detach().sum().double() for t in tensors])
    return sums.cpu().numpy()
