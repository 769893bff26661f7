"""Move models between PyTorch and minigrad: same structure, same names, same weights.

    mg_model = from_torch(torch_model)     # a minigrad twin of a torch model
    torch_model = to_torch(mg_model)       # and back

Each supported layer maps to its twin with the same constructor arguments, then
every parameter and buffer is copied by name, keeping its dtype, so float64 round
trips are exact. Containers (Sequential, ModuleList) are rebuilt with the same child
names. A layer with no twin (including a custom Module subclass, whose forward
code cannot be translated) raises a TypeError naming it. The training/eval mode
and requires_grad flags are carried over. Neither direction moves any random
generator: the layers' default initialisation runs with the generator's state
saved and restored, and is then overwritten by the copied weights.

torch is imported inside the functions, so ``import minigrad`` never needs it.
"""
import numpy as np

from . import nn
from .random import get_rng_state, set_rng_state

# layer name -> (the constructor arguments both frameworks share, read off the source layer)
_LAYERS = {
    "Linear": lambda m: dict(in_features=m.in_features, out_features=m.out_features,
                             bias=m.bias is not None),
    "Conv2d": lambda m: dict(in_channels=m.in_channels, out_channels=m.out_channels,
                             kernel_size=tuple(m.kernel_size), stride=tuple(m.stride),
                             padding=m.padding if isinstance(m.padding, str) else tuple(m.padding),
                             dilation=tuple(m.dilation), groups=m.groups,
                             bias=m.bias is not None, padding_mode=m.padding_mode),
    "MaxPool2d": lambda m: dict(kernel_size=m.kernel_size, stride=m.stride, padding=m.padding,
                                dilation=m.dilation, return_indices=m.return_indices,
                                ceil_mode=m.ceil_mode),
    "AvgPool2d": lambda m: dict(kernel_size=m.kernel_size, stride=m.stride, padding=m.padding,
                                ceil_mode=m.ceil_mode, count_include_pad=m.count_include_pad,
                                divisor_override=m.divisor_override),
    "Flatten": lambda m: dict(start_dim=m.start_dim, end_dim=m.end_dim),
    "Identity": lambda m: {},
    "ReLU": lambda m: dict(inplace=m.inplace),
    "LeakyReLU": lambda m: dict(negative_slope=m.negative_slope, inplace=m.inplace),
    "Tanh": lambda m: {},
    "Sigmoid": lambda m: {},
    "GELU": lambda m: dict(approximate=m.approximate),
    "Softmax": lambda m: dict(dim=m.dim),
    "LogSoftmax": lambda m: dict(dim=m.dim),
    "Dropout": lambda m: dict(p=m.p, inplace=m.inplace),
    "BatchNorm1d": lambda m: _batch_norm_args(m),
    "BatchNorm2d": lambda m: _batch_norm_args(m),
    "LayerNorm": lambda m: dict(normalized_shape=tuple(m.normalized_shape), eps=m.eps,
                                elementwise_affine=m.elementwise_affine,
                                bias=getattr(m, "bias", None) is not None
                                or not m.elementwise_affine),
    "Embedding": lambda m: dict(num_embeddings=m.num_embeddings, embedding_dim=m.embedding_dim,
                                padding_idx=m.padding_idx, max_norm=m.max_norm,
                                scale_grad_by_freq=m.scale_grad_by_freq, sparse=m.sparse),
    "CrossEntropyLoss": lambda m: dict(ignore_index=m.ignore_index, reduction=m.reduction,
                                       label_smoothing=m.label_smoothing),
    "NLLLoss": lambda m: dict(ignore_index=m.ignore_index, reduction=m.reduction),
    "MSELoss": lambda m: dict(reduction=m.reduction),
    "BCEWithLogitsLoss": lambda m: dict(reduction=m.reduction),
    # sequence models
    "Conv1d": lambda m: dict(in_channels=m.in_channels, out_channels=m.out_channels,
                             kernel_size=tuple(m.kernel_size), stride=tuple(m.stride),
                             padding=m.padding if isinstance(m.padding, str) else tuple(m.padding),
                             dilation=tuple(m.dilation), groups=m.groups,
                             bias=m.bias is not None, padding_mode=m.padding_mode),
    "GroupNorm": lambda m: dict(num_groups=m.num_groups, num_channels=m.num_channels, eps=m.eps,
                                affine=m.affine),
    "SiLU": lambda m: {},
    "Softplus": lambda m: dict(beta=m.beta, threshold=m.threshold),
    "ELU": lambda m: dict(alpha=m.alpha),
    "L1Loss": lambda m: dict(reduction=m.reduction),
    "SmoothL1Loss": lambda m: dict(reduction=m.reduction, beta=m.beta),
    "BCELoss": lambda m: dict(reduction=m.reduction),
    "KLDivLoss": lambda m: dict(reduction=m.reduction, log_target=m.log_target),
    "RNN": lambda m: dict(_recurrent_args(m), nonlinearity=m.nonlinearity),
    "LSTM": lambda m: _recurrent_args(m),
    "GRU": lambda m: _recurrent_args(m),
    "MultiheadAttention": lambda m: dict(embed_dim=m.embed_dim, num_heads=m.num_heads,
                                         dropout=m.dropout, bias=m.in_proj_bias is not None,
                                         batch_first=m.batch_first),
    "TransformerEncoderLayer": lambda m: _encoder_layer_args(m),
}


def _recurrent_args(m):
    if getattr(m, "proj_size", 0):
        raise TypeError("cannot convert an LSTM with proj_size: minigrad's LSTM has no projection")
    return dict(input_size=m.input_size, hidden_size=m.hidden_size, num_layers=m.num_layers,
                bias=m.bias, batch_first=m.batch_first, dropout=float(m.dropout),
                bidirectional=m.bidirectional)


def _encoder_layer_args(m):
    """TransformerEncoderLayer's options, read off its parts (torch keeps no copy of them)."""
    activation = getattr(m, "activation_name", None)   # minigrad keeps the name
    if activation is None:
        # torch records relu as 1 and gelu as 2; anything else is a custom function
        activation = {1: "relu", 2: "gelu"}.get(getattr(m, "activation_relu_or_gelu", 0))
    if activation is None:
        raise TypeError("cannot convert a TransformerEncoderLayer with a custom activation "
                        "function; only 'relu' and 'gelu' have twins")
    return dict(d_model=m.linear1.in_features, nhead=m.self_attn.num_heads,
                dim_feedforward=m.linear1.out_features, dropout=m.dropout.p,
                activation=activation, layer_norm_eps=m.norm1.eps,
                batch_first=m.self_attn.batch_first, norm_first=m.norm_first,
                bias=m.linear1.bias is not None)

def _batch_norm_args(m):
    return dict(num_features=m.num_features, eps=m.eps, momentum=m.momentum, affine=m.affine,
                track_running_stats=m.track_running_stats,
                bias=m.bias is not None or not m.affine)


# layers whose constructor takes a dtype (the others hold no floats of their own)
_TYPED = ("Linear", "Conv2d", "BatchNorm1d", "BatchNorm2d", "LayerNorm", "Embedding", "Conv1d",
          "GroupNorm", "RNN", "LSTM", "GRU", "MultiheadAttention", "TransformerEncoderLayer")
_CONTAINERS = ("Sequential", "ModuleList")
# layers with submodules of their own: built whole, then every parameter copied by its full name
_COMPOSITES = ("MultiheadAttention", "TransformerEncoderLayer")
# stacks of converted layers: TransformerEncoder's layers (and final norm) convert one by one
_STACKS = ("TransformerEncoder",)


def _torch():
    try:
        import torch
    except ImportError as error:   # pragma: no cover - depends on the environment
        raise ImportError("minigrad.interop needs PyTorch: pip install torch") from error
    return torch


def _layer_name(module, namespace, framework):
    """The class name of ``module`` if it is one of the supported layers, else a clear error."""
    cls = type(module)
    name = cls.__name__
    supported = name in _LAYERS or name in _CONTAINERS or name in _STACKS
    if not supported or getattr(namespace, name, None) is not cls:
        known = ", ".join(sorted(_LAYERS) + list(_CONTAINERS) + list(_STACKS))
        raise TypeError(
            f"cannot convert {cls.__module__}.{name}: it is not a supported {framework} layer. "
            f"Supported layers: {known}. For a model with its own forward(), build the twin "
            "model by hand and copy the weights with load_state_dict(other.state_dict()).")
    return name


def _param_dtype(module):
    recurse = type(module).__name__ in _COMPOSITES
    for tensor in list(module.parameters(recurse=recurse)) + list(module.buffers(recurse=recurse)):
        if tensor.dtype.is_floating_point if hasattr(tensor.dtype, "is_floating_point") \
                else np.dtype(tensor.dtype).kind == "f":
            return tensor.dtype
    return None


def from_torch(torch_module):
    """A minigrad module with the structure, names, weights and dtypes of ``torch_module``."""
    torch = _torch()
    if not isinstance(torch_module, torch.nn.Module):
        raise TypeError(f"from_torch expects a torch.nn.Module, got {type(torch_module).__name__}")
    state = get_rng_state()
    try:
        return _from_torch(torch_module, torch)
    finally:
        set_rng_state(state)


def _encoder_stack(module, convert, namespace, **options):
    """A TransformerEncoder of ``namespace`` holding ``convert``-ed copies of the layers."""
    layers = [convert(layer) for layer in module.layers]
    norm = None if module.norm is None else convert(module.norm)
    twin = namespace.TransformerEncoder(layers[0], len(layers), norm=norm, **options)
    twin.layers = namespace.ModuleList(layers)      # each layer with its own weights
    return twin


def _from_torch(module, torch):
    name = _layer_name(module, torch.nn, "torch.nn")
    if name in _STACKS:
        twin = _encoder_stack(module, lambda m: _from_torch(m, torch), nn)
    elif name in _CONTAINERS:
        children = [(key, _from_torch(child, torch)) for key, child in module.named_children()]
        twin = getattr(nn, name)()
        for key, child in children:
            twin.add_module(key, child)
    else:
        kwargs = _LAYERS[name](module)
        torch_dtype = _param_dtype(module)
        if name in _TYPED and torch_dtype is not None:
            kwargs["dtype"] = np.dtype(str(torch_dtype).replace("torch.", ""))
        twin = getattr(nn, name)(**kwargs)
        for key, value in module.named_buffers(recurse=False):
            if name.endswith("Loss") and value is not None:   # class weights of losses
                twin.register_buffer(key, _tensor_from_torch(value))
        _copy_into_minigrad(module, twin)
    twin.train(module.training)
    return twin


def _tensor_from_torch(value):
    from .tensor import Tensor
    array = value.detach().cpu().numpy().copy()
    return Tensor(array, dtype=array.dtype)


def _copy_into_minigrad(source, target):
    recurse = type(source).__name__ in _COMPOSITES
    mine_by_name = dict(target.named_parameters(recurse=recurse))
    for key, param in source.named_parameters(recurse=recurse):
        mine = mine_by_name[key]
        mine.data = param.detach().cpu().numpy().copy()
        mine.requires_grad = param.requires_grad
    for key, buf in source.named_buffers(recurse=False):
        if key in target._buffers and target._buffers[key] is not None:
            target._buffers[key].data = buf.detach().cpu().numpy().copy()


def to_torch(mg_module):
    """A torch module with the structure, names, weights and dtypes of ``mg_module``."""
    torch = _torch()
    if not isinstance(mg_module, nn.Module):
        raise TypeError(f"to_torch expects a minigrad.nn.Module, got {type(mg_module).__name__}")
    state = torch.get_rng_state()
    try:
        return _to_torch(mg_module, torch)
    finally:
        torch.set_rng_state(state)


def _to_torch(module, torch):
    name = _layer_name(module, nn, "minigrad.nn")
    if name in _STACKS:
        twin = _encoder_stack(module, lambda m: _to_torch(m, torch), torch.nn,
                              enable_nested_tensor=False)
    elif name in _CONTAINERS:
        twin = getattr(torch.nn, name)()
        for key, child in module.named_children():
            twin.add_module(key, _to_torch(child, torch))
    else:
        kwargs = _LAYERS[name](module)
        dtype = _param_dtype(module)
        if name in _TYPED and dtype is not None:
            kwargs["dtype"] = getattr(torch, np.dtype(dtype).name)
        twin = getattr(torch.nn, name)(**kwargs)
        for key, value in module.named_buffers(recurse=False):
            if name.endswith("Loss") and value is not None:
                twin.register_buffer(key, torch.from_numpy(value.data.copy()))
        with torch.no_grad():
            recurse = name in _COMPOSITES
            for key, param in module.named_parameters(recurse=recurse):
                theirs = twin.get_parameter(key)
                theirs.data = torch.from_numpy(param.data.copy())
                theirs.requires_grad_(param.requires_grad)
            for key, buf in module.named_buffers(recurse=False):
                if getattr(twin, key, None) is not None:
                    setattr(twin, key, torch.from_numpy(np.array(buf.data, copy=True)))
    twin.train(module.training)
    return twin
