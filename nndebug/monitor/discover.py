"""What to watch: the trainable parameters and the layers whose outputs are measured.

Done once, when ``watch`` starts; the result is the static part of the ``RunRecord``.
"""
from collections import Counter

from ..records import (BATCHNORM_TYPES, DROPOUT_TYPES, PASS_THROUGH_TYPES, LayerInfo, ParamInfo,
                       layer_kind)


def optimizer_held(adapter, optimizer):
    """ids of the parameters the optimizer holds (None without an optimizer)."""
    if optimizer is None:
        return None
    try:
        return {id(p) for p in adapter.optimizer_parameters(optimizer)}
    except (AttributeError, KeyError, TypeError) as error:
        raise TypeError(f"optimizer must be an optimizer of the model's framework with "
                        f".param_groups (each a dict with 'params'); got "
                        f"{type(optimizer).__name__} ({error})") from None


def parameters(adapter, optimizer):
    """``(tensors, infos)``: the trainable parameters and their ``ParamInfo``, aligned."""
    held = optimizer_held(adapter, optimizer)
    times = None if held is None else optimizer_listings(adapter, optimizer)
    trainable = [(n, p) for n, p in adapter.named_parameters() if adapter.requires_grad(p)]
    _refuse_uninitialised(trainable)
    infos = [ParamInfo(n, tuple(p.shape), True, None if held is None else id(p) in held,
                       None if times is None else times.get(id(p), 0))
             for n, p in trainable]
    return [p for _, p in trainable], infos


def _refuse_uninitialised(named):
    """A lazy module (``nn.LazyLinear``, ``nn.LazyConv2d``) has no shape until its first
    forward pass: every statistic of watch needs one, so watching it before then is refused
    with what to do (rather than torch's error from deep inside)."""
    lazy = [name for name, p in named
            if type(p).__name__ in ("UninitializedParameter", "UninitializedBuffer")]
    if lazy:
        raise ValueError(
            f"watch needs the model's parameters to exist, but {lazy[0]}"
            f"{f' and {len(lazy) - 1} more' if len(lazy) > 1 else ''} belong to lazy modules "
            "(nn.LazyLinear, nn.LazyConv2d, ...) that get their shape at the first forward "
            "pass. Run one forward pass first (model(example_batch)), then build the "
            "optimizer and call nd.watch(model, optimizer).")


def optimizer_listings(adapter, optimizer):
    """{id: how many times the optimizer's param groups list the tensor}: a tensor listed
    twice (``list(actor.parameters()) + list(critic.parameters())`` over a shared body) is
    updated twice by every ``optimizer.step()``; torch only warns, when the optimizer is
    built."""
    return Counter(map(id, adapter.optimizer_parameters(optimizer)))


def layers(adapter):
    """``(measured, mode_layers)``.

    ``measured``: ``[(name, module, kind)]`` of the leaf layers whose outputs carry new
    values (dropout, identity and flatten pass through); ``mode_layers``: ``[(name,
    module)]`` of the dropout and batch-norm layers, whose train/eval mode is checked.
    Each module once, under its first name.
    """
    measured, mode_layers, seen = [], [], set()
    for name, module in adapter.named_modules():
        if id(module) in seen:
            continue
        seen.add(id(module))
        kind = adapter.module_type(module)
        if kind in DROPOUT_TYPES or kind in BATCHNORM_TYPES or _drops_inside(module):
            mode_layers.append((name, module))
        if adapter.is_leaf_module(module) and kind not in PASS_THROUGH_TYPES:
            measured.append((name, module, layer_kind(kind)))
    return measured, mode_layers


def layer_infos(adapter, measured):
    return [LayerInfo(n, adapter.module_type(m), k) for n, m, k in measured]


def _drops_inside(module):
    """A layer that drops out by itself, with no dropout child: a float ``dropout`` > 0 on
    the module - a stacked LSTM/GRU/RNN (between its layers: only with num_layers > 1),
    nn.MultiheadAttention (its attention weights), a user's layer calling
    F.dropout(x, self.dropout, self.training). Its mode matters as a Dropout's does (core
    variants 3: a 2-layer LSTM's dropout, trained in eval mode, went unseen)."""
    rate = getattr(module, "dropout", None)
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not rate > 0:
        return False
    layers = getattr(module, "num_layers", None)
    return not isinstance(layers, int) or layers > 1
