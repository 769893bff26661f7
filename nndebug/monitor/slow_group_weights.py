"""Whether the weights given a fine-tuning rate look pretrained (PRETRAINED_WEIGHTS_NOT_LOADED,
``nndebug.rules.pretrained_weights``).

Fine-tuning gives the pretrained body a rate several times smaller than the new head's: the
small rate says "these weights already know something". When the checkpoint never reached
them (a loader whose key filter matched nothing: jfzhang95/pytorch-deeplab-xception#125; an
initialiser run after the load: thulab/DeepHash#54), they are the layer's random
initialisation, fine-tuned at a rate too small to train them from scratch, and nothing
fails.

Read once, when watching starts (no per-step cost): the param groups whose rate is at most
``1 / SLOW_RATIO`` of the fastest group's; for each of their weight tensors (two or more
axes) the statistics of an even sample of its values (mean, std, largest magnitude,
kurtosis, the spread of its rows' norms, as ``structure.py`` takes them for frozen tensors) and the initialiser they still
look like, judged as FROZEN_PARAMETERS judges a frozen tensor
(``rules.structure.looks_freshly_initialised``). Kept as ``run.observed.slow_group_weights``:
``[(group, group lr, fastest lr, tensor name, initialiser it looks like or "")]`` (a declared
field of ``nndebug.observed.Observed``: saved and loaded with the run).
"""
import math

from ..observed import FrozenTensor
from .structure import FROZEN_SAMPLE, _fans, unit_spread

SLOW_RATIO = 5.0   # [convention] discriminative fine-tuning rates: the body at 1/10 of the
                   # head's (mmcv/PaddleSeg lr_mult 0.1; ULMFiT's 2.6 per layer over 3-4
                   # layers; DETR 1e-5 against 1e-4); 5 leaves room below those


def _statistics(adapter, tensor):
    """FrozenTensor-style statistics of ``tensor`` (one host transfer)."""
    xp = adapter.xp
    x = xp.asfloat(adapter.detach(tensor))
    spread, rows = unit_spread(xp, x)
    size = math.prod(x.shape)
    if size > FROZEN_SAMPLE:
        x = xp.reshape(x, (-1,))[::-(-size // FROZEN_SAMPLE)]
    mean, std = xp.mean(x), xp.std(x)
    centred = (x - mean) / xp.where(std > 0, std, std + 1)
    host = adapter.to_host(xp.stack([mean, std, xp.amax(xp.abs(x)),
                                     xp.mean(centred * centred * centred * centred), spread]))
    mean, std, absmax, kurtosis, spread = (float(v) for v in host.reshape(-1))
    measured = len(range(0, size, -(-size // FROZEN_SAMPLE))) if size > FROZEN_SAMPLE else size
    return mean, std, absmax, (kurtosis if std > 0 else float("nan")), measured, spread, rows


def read_slow_group_weights(adapter, optimizer, observed, on_error):
    """Fill ``observed.slow_group_weights`` (replacing what it held)."""
    try:
        from ..rules.structure import looks_freshly_initialised
        groups = getattr(optimizer, "param_groups", None) if optimizer is not None else None
        if not groups or len(groups) < 2:
            return
        rates = [float(g["lr"]) if isinstance(g.get("lr"), (int, float)) else None
                 for g in groups]
        fastest = max((r for r in rates if r is not None), default=None)
        if not fastest or fastest <= 0:
            return
        names = {id(p): n for n, p in adapter.named_parameters()}
        all_shapes = {n: tuple(p.shape) for n, p in adapter.named_parameters()}
        rows = []
        for index, (group, rate) in enumerate(zip(groups, rates)):
            if rate is None or rate <= 0 or rate * SLOW_RATIO > fastest:
                continue
            for p in group["params"]:
                name = names.get(id(p))
                if name is None or len(tuple(p.shape)) < 2:
                    continue
                mean, std, absmax, kurtosis, measured, spread, units = _statistics(adapter, p)
                fan_in, fan_out = _fans(name, tuple(p.shape), all_shapes)
                tensor = FrozenTensor(name=name, shape=tuple(p.shape), fan_in=fan_in,
                                      fan_out=fan_out, mean=mean, std=std, absmax=absmax,
                                      kurtosis=kurtosis,
                                      unit_spread=spread if units else None,
                                      unit_rows=units, measured=measured)
                rows.append((index, rate, fastest, name,
                             looks_freshly_initialised(tensor) or ""))
        observed.slow_group_weights = rows
    except Exception as error:            # never break the user's run
        on_error(error)
