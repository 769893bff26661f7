"""Data-parallel training (torch.distributed, DDP): bugs that exist only across ranks.

What the monitor's rank exchange (``nndebug.rank_records``) gives these rules, on every
recorded step, from every rank: a fingerprint of the batch, a checksum of every parameter
and batch-norm buffer, and which codes each rank's own rules found.

- DDP_SAME_DATA_ON_RANKS: every rank trained on the same batch (no DistributedSampler):
  N processes do the work of one, and the effective batch is 1/N of what was meant.
- DDP_REPLICAS_DIVERGED: after an optimizer step the ranks hold different weights: a model
  not wrapped in DDP, gradients never synchronised (accumulation that never leaves
  ``no_sync()``), or weights initialised per rank and never broadcast. Each rank trains its
  own model, and the checkpoint rank 0 saves is one of several.
- DDP_BUFFERS_DIFFER: batch-norm running statistics differ across ranks
  (``broadcast_buffers=False`` without SyncBatchNorm): evaluation depends on which rank
  saved. Info: harmless when only rank 0 evaluates and saves, a trap otherwise.
"""
from ..findings import Finding
from .graph import rule

SAME_DATA_SHARE = 0.9         # [design] the batches were equal on (nearly) every exchange...
MIN_BATCHES_COMPARED = 2      # [design] ... and on at least two of them (one could be chance)


def _ranks(ctx):
    ranks = getattr(ctx.run, "ranks", None)
    return ranks if ranks is not None and ranks.world_size > 1 else None


@rule(produces="DDP_SAME_DATA_ON_RANKS")
def ddp_same_data_on_ranks(ctx):
    ranks = _ranks(ctx)
    if ranks is None or ranks.batches_compared < MIN_BATCHES_COMPARED:
        return None
    if ranks.same_batches < SAME_DATA_SHARE * ranks.batches_compared:
        return None
    everyone = list(range(ranks.world_size))
    return Finding(
        code="DDP_SAME_DATA_ON_RANKS", severity="warning", step=ranks.first_same_batch_step,
        message=f"All {ranks.world_size} ranks trained on the same batches ({ranks.same_batches} "
                f"of {ranks.batches_compared} compared steps): the run costs {ranks.world_size} "
                "times the compute for the data of one process.",
        evidence={"ranks": everyone, "same_batches": ranks.same_batches,
                  "batches_compared": ranks.batches_compared},
        fix="Give the training DataLoader a DistributedSampler(dataset) (and call "
            "sampler.set_epoch(epoch) each epoch), so each rank sees its own share of the data.")


@rule(produces="DDP_REPLICAS_DIVERGED")
def ddp_replicas_diverged(ctx):
    ranks = _ranks(ctx)
    if ranks is None or ranks.params is None:
        return None
    d = ranks.params
    return Finding(
        code="DDP_REPLICAS_DIVERGED", severity="error", where=d.name, step=d.step,
        message=f"The model's weights differ across ranks after step {d.step} (first in "
                f"{d.name}, on rank(s) {', '.join(map(str, d.ranks))} compared with rank 0): "
                "each rank trains its own model, and a checkpoint saved by one rank is only one "
                "of them.",
        evidence={"ranks": [0] + d.ranks, "parameter": d.name, "checksums_by_rank": d.values},
        fix="Wrap the model in DistributedDataParallel (and use it, not the inner module, in "
            "the forward pass); with gradient accumulation, leave no_sync() for the last "
            "micro-batch before optimizer.step(); initialise with the same seed on every rank "
            "(DDP broadcasts rank 0's weights when it wraps the model).")


@rule(produces="DDP_BUFFERS_DIFFER")
def ddp_buffers_differ(ctx):
    ranks = _ranks(ctx)
    if ranks is None or ranks.buffers is None:
        return None
    d = ranks.buffers
    return Finding(
        code="DDP_BUFFERS_DIFFER", severity="info", where=d.name, step=d.step,
        message=f"Batch-norm running statistics differ across ranks (first {d.name} at step "
                f"{d.step}): evaluation results depend on which rank's copy is used.",
        evidence={"ranks": [0] + d.ranks, "buffer": d.name, "checksums_by_rank": d.values},
        fix="Keep DistributedDataParallel's default broadcast_buffers=True, or convert the "
            "model with torch.nn.SyncBatchNorm.convert_sync_batchnorm(model); evaluate and save "
            "on one rank.")
