"""Layers, losses and containers with torch.nn's names, arguments and parameter layouts.

    import minigrad.nn as nn
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    loss = nn.CrossEntropyLoss()(model(x), y)
"""
from . import functional, init, utils
from .module import Module, Parameter
from .hooks import RemovableHandle
from .container import Sequential, ModuleList
from .linear import Linear, Identity, Flatten
from .conv import Conv1d, Conv2d, MaxPool2d, AvgPool2d
from .activation import (ReLU, LeakyReLU, Tanh, Sigmoid, GELU, Softmax, LogSoftmax, SiLU, Softplus,
                         ELU)
from .dropout import Dropout
from .normalization import BatchNorm1d, BatchNorm2d, LayerNorm, GroupNorm
from .sparse import Embedding
from .loss import (CrossEntropyLoss, NLLLoss, MSELoss, BCEWithLogitsLoss, L1Loss, SmoothL1Loss,
                   BCELoss, KLDivLoss)
from .rnn import RNNBase, RNN, LSTM, GRU
from .attention import MultiheadAttention
from .transformer import TransformerEncoderLayer, TransformerEncoder

__all__ = [
    "functional", "init", "utils", "Module", "Parameter", "RemovableHandle", "Sequential",
    "ModuleList", "Linear", "Identity", "Flatten", "Conv2d", "MaxPool2d", "AvgPool2d", "ReLU",
    "LeakyReLU", "Tanh", "Sigmoid", "GELU", "Softmax", "LogSoftmax", "Dropout", "BatchNorm1d",
    "BatchNorm2d", "LayerNorm", "Embedding", "CrossEntropyLoss", "NLLLoss", "MSELoss",
    "BCEWithLogitsLoss", "Conv1d", "SiLU", "Softplus", "ELU", "GroupNorm", "L1Loss", "SmoothL1Loss",
    "BCELoss", "KLDivLoss", "RNNBase", "RNN", "LSTM", "GRU", "MultiheadAttention",
    "TransformerEncoderLayer", "TransformerEncoder",
]
