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
    infos = [ParamInfo(n, tuple(p.shape), True, None if held is None else id(p) in held,
                       None if times is None else times.get(id(p), 0))
             for n, p in trainable]
    return [p for _, p in trainable], infos


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
    module, owner)]`` of the dropout and batch-norm layers, whose train/eval mode is
    checked, with the module whose parameters say whether the layer sits in a frozen part
    (``in_frozen_part``): the layer itself when it has parameters, else its parent.
    Each module once, under its first name.
    """
    measured, mode_layers, seen = [], [], set()
    by_name = dict(adapter.named_modules())
    for name, module in by_name.items():
        if id(module) in seen:
            continue
        seen.add(id(module))
        kind = adapter.module_type(module)
        if kind in DROPOUT_TYPES or kind in BATCHNORM_TYPES:
            parent = by_name.get(name.rpartition(".")[0], adapter.model)
            owner = module if adapter.own_parameters(module) else parent
            mode_layers.append((name, module, owner))
        if adapter.is_leaf_module(module) and kind not in PASS_THROUGH_TYPES:
            measured.append((name, module, layer_kind(kind)))
    return measured, mode_layers


def in_frozen_part(adapter, owner):
    """Whether ``owner`` (``layers``' third item) has parameters and none of them trains: a
    frozen backbone put in eval mode (the usual way to fine-tune a head on it), or a batch
    norm frozen on purpose, is not a training loop left in eval mode."""
    found = False
    for _, parameter in adapter._params_of(owner):
        if adapter.requires_grad(parameter):
            return False
        found = True
    return found


def layer_infos(adapter, measured):
    return [LayerInfo(n, adapter.module_type(m), k) for n, m, k in measured]
