"""Recurrent layers RNN, LSTM and GRU, with torch's arguments, parameter names and layouts.

For layer k and direction d the parameters are ``weight_ih_l{k}{sfx}`` (G*H, input),
``weight_hh_l{k}{sfx}`` (G*H, H), ``bias_ih_l{k}{sfx}`` and ``bias_hh_l{k}{sfx}`` (G*H,),
with ``sfx`` "" forward and "_reverse" backward, and G the number of gates
(RNN 1, GRU 3 in the order r, z, n; LSTM 4 in the order i, f, g, o). So
``mg_lstm.load_state_dict(torch_lstm.state_dict())`` copies weights one to one.

How a layer runs: at each time step ``x_t @ W_ih^T + h @ W_hh^T + biases`` (the
weights transposed once per sequence), then the step itself, a fused primitive
(``lstm_cell``, ``gru_cell``) or ``tanh``/``relu`` for the plain RNN.
"""
import math

import numpy as np

from .. import ops
from ..ops.registry import REGISTRY
from ..tensor import Tensor, as_tensor, get_default_dtype
from . import functional as F
from . import init
from .arguments import check_device
from .module import Module, Parameter

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


class RNNBase(Module):
    """The shared machinery: parameters, shapes, layers, directions, dropout between layers."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        check_device(device)
        if proj_size:
            raise NotImplementedError("minigrad's LSTM does not support proj_size; leave it 0")
        if not 0 <= dropout <= 1:
            raise ValueError(f"dropout should be a number in [0, 1], got {dropout}")
        if int(num_layers) < 1 or int(hidden_size) < 1:
            raise ValueError(f"num_layers and hidden_size must be positive, got {num_layers} and "
                             f"{hidden_size}")
        self.mode, self.input_size, self.hidden_size = mode, int(input_size), int(hidden_size)
        self.num_layers, self.bias, self.batch_first = int(num_layers), bool(bias), batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bool(bidirectional), 0
        dtype = np.dtype(dtype or get_default_dtype())
        gates = _GATES[mode] * self.hidden_size
        directions = 2 if self.bidirectional else 1
        for layer in range(self.num_layers):
            layer_input = self.input_size if layer == 0 else self.hidden_size * directions
            for suffix in ("", "_reverse")[:directions]:
                shapes = {"weight_ih": (gates, layer_input), "weight_hh": (gates, self.hidden_size)}
                if self.bias:
                    shapes.update(bias_ih=(gates,), bias_hh=(gates,))
                for name, shape in shapes.items():
                    setattr(self, f"{name}_l{layer}{suffix}",
                            Parameter(np.empty(shape, dtype=dtype), dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        """torch's default: every weight and bias uniform in +-1/sqrt(hidden_size)."""
        bound = 1.0 / math.sqrt(self.hidden_size)
        for param in self.parameters():
            init.uniform_(param, -bound, bound)

    def flatten_parameters(self):
        """Accepted for torch compatibility (cuDNN's contiguous weights); nothing to do here."""

    @property
    def _directions(self):
        return 2 if self.bidirectional else 1

    def _weights(self, layer, suffix):
        get = lambda name: self._parameters.get(f"{name}_l{layer}{suffix}")  # noqa: E731
        return get("weight_ih"), get("weight_hh"), get("bias_ih"), get("bias_hh")

    # --- shapes -----------------------------------------------------------------------------
    def _check_input(self, input):
        if input.ndim not in (2, 3):
            raise ValueError(f"{type(self).__name__}: expected input of 2 (unbatched L, H_in) or "
                             f"3 dims ({'N, L' if self.batch_first else 'L, N'}, H_in), got shape "
                             f"{input.shape}")
        if input.shape[-1] != self.input_size:
            raise ValueError(f"{type(self).__name__}: input.size(-1) must be equal to input_size. "
                             f"Expected {self.input_size}, got {input.shape[-1]}")

    def _initial_state(self, state, batch, dtype, unbatched, what="h0"):
        expected = (self.num_layers * self._directions, batch, self.hidden_size)
        if state is None:
            return Tensor(np.zeros(expected, dtype=dtype), dtype=dtype)
        state = as_tensor(state)
        if unbatched:
            if state.ndim != 2:
                raise ValueError(f"{type(self).__name__}: for unbatched input {what} must be 2-D "
                                 f"{(expected[0], expected[2])}, got shape {state.shape}")
            state = ops.reshape(state, (expected[0], 1, expected[2]))
        if state.shape != expected:
            raise ValueError(f"{type(self).__name__}: expected {what} of shape {expected} "
                             f"(num_layers * num_directions, batch, hidden_size), got {state.shape}")
        return state

    # --- the loop -------------------------------------------------------------------------------
    # Each step computes x_t W_ih^T + h W_hh^T + bias. The two biases are summed once where that
    # is the same sum (RNN, LSTM); the GRU adds b_hh per step, inside r * (h W_hn^T + b_hn).
    # Steps are fed as a list of (N, features) tensors: slicing one big (L, N, G) projection
    # per step would cost a whole-sequence gradient array per step in backward.
    _bias_hh_per_step = False

    def _step(self, x_part, hidden, hidden_part):
        """One time step from the input part and ``hidden_part(h)``; ``hidden`` is h (RNN, GRU)
        or (h, c) (LSTM). Returns the new hidden."""
        raise NotImplementedError

    def _run_direction(self, xs, hidden, layer, suffix):
        """Run one layer in one direction over the steps ``xs``; returns (outputs, last hidden)."""
        weight_ih, weight_hh, bias_ih, bias_hh = self._weights(layer, suffix)
        weight_ih_t = ops.permute(weight_ih, (1, 0))       # transposed once, not per step
        weight_hh_t = ops.permute(weight_hh, (1, 0))
        input_bias, hidden_bias = bias_ih, None
        if bias_hh is not None:
            if self._bias_hh_per_step:
                hidden_bias = bias_hh
            else:
                input_bias = ops.add(bias_ih, bias_hh)

        def input_part(x):
            out = ops.matmul(x, weight_ih_t)
            return out if input_bias is None else ops.add(out, input_bias)

        def hidden_part(h):
            out = ops.matmul(h, weight_hh_t)
            return out if hidden_bias is None else ops.add(out, hidden_bias)

        steps = range(len(xs))
        if suffix:
            steps = reversed(steps)
        outputs = [None] * len(xs)
        for t in steps:
            hidden = self._step(input_part(xs[t]), hidden, hidden_part)
            outputs[t] = hidden[0] if isinstance(hidden, tuple) else hidden
        return outputs, hidden

    def _forward(self, input, state):
        input = as_tensor(input)
        self._check_input(input)
        unbatched = input.ndim == 2
        if unbatched:
            input = ops.reshape(input, (input.shape[0], 1, input.shape[1]))
        elif self.batch_first:
            input = ops.permute(input, (1, 0, 2))
        batch = input.shape[1]
        if self.mode == "LSTM":
            if state is None:
                state = (None, None)
            if not isinstance(state, (tuple, list)) or len(state) != 2:
                raise ValueError("LSTM: the initial state must be a tuple (h0, c0)")
            h0 = self._initial_state(state[0], batch, input.dtype, unbatched, "h0")
            c0 = self._initial_state(state[1], batch, input.dtype, unbatched, "c0")
        else:
            h0 = self._initial_state(state, batch, input.dtype, unbatched, "hx")
        finals_h, finals_c = [], []
        xs = [input[t] for t in range(input.shape[0])]       # (N, H_in) per time step
        for layer in range(self.num_layers):
            per_direction = []
            for d, suffix in enumerate(("", "_reverse")[:self._directions]):
                index = layer * self._directions + d
                hidden = (h0[index], c0[index]) if self.mode == "LSTM" else h0[index]
                outputs, hidden = self._run_direction(xs, hidden, layer, suffix)
                per_direction.append(outputs)
                if self.mode == "LSTM":
                    finals_h.append(hidden[0])
                    finals_c.append(hidden[1])
                else:
                    finals_h.append(hidden)
            xs = per_direction[0] if len(per_direction) == 1 else \
                [ops.cat(pair, axis=-1) for pair in zip(*per_direction)]
            if self.dropout and self.training and layer < self.num_layers - 1:
                xs = [F.dropout(x, self.dropout, training=True) for x in xs]
        x = ops.stack(xs, axis=0)
        h_n = ops.stack(finals_h, axis=0)
        c_n = ops.stack(finals_c, axis=0) if self.mode == "LSTM" else None
        if unbatched:
            x = ops.reshape(x, (x.shape[0], x.shape[2]))
            h_n = ops.reshape(h_n, (h_n.shape[0], h_n.shape[2]))
            c_n = None if c_n is None else ops.reshape(c_n, (c_n.shape[0], c_n.shape[2]))
        elif self.batch_first:
            x = ops.permute(x, (1, 0, 2))
        return x, (h_n if c_n is None else (h_n, c_n))

    def forward(self, input, hx=None):
        return self._forward(input, hx)

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        if not self.bias:
            text += ", bias=False"
        if self.batch_first:
            text += ", batch_first=True"
        if self.dropout:
            text += f", dropout={self.dropout}"
        if self.bidirectional:
            text += ", bidirectional=True"
        return text


class RNN(RNNBase):
    """Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu)."""

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, device=None, dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity {nonlinearity!r}; use 'tanh' or 'relu'")
        self.nonlinearity = nonlinearity
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size,
                         hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         device=device, dtype=dtype)

    def _step(self, x_part, h, hidden_part):
        pre = ops.add(x_part, hidden_part(h))
        return ops.tanh(pre) if self.nonlinearity == "tanh" else ops.relu(pre)

    def extra_repr(self):
        text = super().extra_repr()
        return text + (", nonlinearity='relu'" if self.nonlinearity == "relu" else "")


class LSTM(RNNBase):
    """Long short-term memory; returns ``output, (h_n, c_n)`` as torch."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, proj_size, device=device, dtype=dtype)

    def _step(self, x_part, hidden, hidden_part):
        h, c = hidden
        gates = ops.add(x_part, hidden_part(h))
        both = REGISTRY["lstm_cell"].apply(gates, c)      # stack([h, c])
        return both[0], both[1]


class GRU(RNNBase):
    """Gated recurrent unit; the reset gate multiplies the hidden projection (torch's variant)."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, device=None, dtype=None):
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, device=device, dtype=dtype)

    _bias_hh_per_step = True

    def _step(self, x_part, h, hidden_part):
        return REGISTRY["gru_cell"].apply(x_part, hidden_part(h), h)
