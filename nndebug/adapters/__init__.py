"""Pick the adapter for a model: ``adapt(model)``.

torch is only imported when the model is a torch module, so nndebug works with
NumPy alone on minigrad models.
"""
import sys

from .base import Adapter, ArrayNamespace


def _is_torch_module(model):
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(model, torch.nn.Module)


def _is_minigrad_module(model):
    try:
        from minigrad.nn import Module
    except ImportError:
        return False
    return isinstance(model, Module)


def adapt(model):
    """The adapter for ``model``; an Adapter is returned as it is.

    Raises TypeError for anything that is neither a ``torch.nn.Module`` nor a
    ``minigrad.nn.Module``.
    """
    if isinstance(model, Adapter):
        return model
    if _is_torch_module(model):
        from .torch_adapter import TorchAdapter
        return TorchAdapter(model)
    if _is_minigrad_module(model):
        from .minigrad_adapter import MinigradAdapter
        return MinigradAdapter(model)
    raise TypeError(
        f"nndebug works on torch.nn.Module and minigrad.nn.Module models, got "
        f"{type(model).__module__}.{type(model).__qualname__}; wrap your network in one of them")


__all__ = ["adapt", "Adapter", "ArrayNamespace"]
