"""Models of the size people train, each with one hand-written backward that drops a term.

Used by ``bench_locate.py`` (real sizes) and by the unit tests (the same code, small
widths, so the tests stay fast):

* ``resnet(width=64)``: a ResNet-18-style CNN for 3x32x32 images (11.2M parameters at
  width 64: four stages of two basic blocks, 64-128-256-512 channels);
* ``transformer(layers=6, dim=256)``: a pre-norm encoder over 64 tokens, 6 layers,
  8 heads, feed-forward 4x, a classifier on the mean token.

``planted=True`` builds one activation (in the first block of the third stage, or the
feed-forward of the middle layer, ``layers // 2``) from ``SiLUDroppedTerm``, whose backward forgets the
product rule's second term; ``planted=False`` builds the correct twin ``SiLUFunction``.
Both compute the same forward, so the two models give the same loss.
"""
import torch
import torch.nn as nn


class SiLUFunction(torch.autograd.Function):
    """x * sigmoid(x), with the derivative written out by hand: s + x s (1 - s)."""

    @staticmethod
    def forward(ctx, x):
        s = torch.sigmoid(x)
        ctx.save_for_backward(x, s)
        return x * s

    @staticmethod
    def backward(ctx, grad):
        x, s = ctx.saved_tensors
        return grad * (s + x * s * (1 - s))


class SiLUDroppedTerm(SiLUFunction):
    """The planted bug: the product rule's second term x s (1 - s) is forgotten."""

    @staticmethod
    def backward(ctx, grad):
        x, s = ctx.saved_tensors
        return grad * s


class HandSiLU(nn.Module):
    def __init__(self, planted):
        super().__init__()
        self.function = SiLUDroppedTerm if planted else SiLUFunction

    def forward(self, x):
        return self.function.apply(x)


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride, activation=None):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.act = activation or nn.ReLU()
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                          nn.BatchNorm2d(cout))
        self.out = nn.ReLU()

    def forward(self, x):
        h = self.act(self.bn1(self.conv1(x)))
        return self.out(self.bn2(self.conv2(h)) + self.shortcut(x))


class ResNet(nn.Module):
    def __init__(self, width=64, classes=10, planted=True):
        super().__init__()
        widths = [width, 2 * width, 4 * width, 8 * width]
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, 1, 1, bias=False), nn.BatchNorm2d(width),
                                  nn.ReLU())
        stages, cin = [], width
        for i, cout in enumerate(widths):
            first = BasicBlock(cin, cout, 1 if i == 0 else 2,
                               HandSiLU(planted) if i == 2 else None)
            stages.append(nn.Sequential(first, BasicBlock(cout, cout, 1)))
            cin = cout
        self.stages = nn.Sequential(*stages)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Linear(cin, classes)

    def forward(self, x):
        return self.head(self.pool(self.stages(self.stem(x))).flatten(1))


PLANTED_RESNET_MODULE = "stages.2.0.act"


class EncoderLayer(nn.Module):
    def __init__(self, dim, heads, activation):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attention = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm2 = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 4 * dim), activation, nn.Linear(4 * dim, dim))

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.attention(h, h, h, need_weights=False)[0]
        return x + self.ff(self.norm2(x))


class Transformer(nn.Module):
    def __init__(self, layers=6, dim=256, heads=8, tokens=64, vocab=1000, classes=10,
                 planted=True):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.position = nn.Parameter(torch.randn(tokens, dim) * 0.02)
        self.layers = nn.ModuleList(
            EncoderLayer(dim, heads, HandSiLU(planted) if i == layers // 2 else nn.GELU())
            for i in range(layers))
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, tokens):
        x = self.embed(tokens) + self.position[: tokens.shape[1]]
        for layer in self.layers:
            x = layer(x)
        return self.head(self.norm(x).mean(dim=1))


def planted_transformer_module(layers=6):
    return f"layers.{layers // 2}.ff.1"


def resnet_problem(width=64, batch=8, planted=True, seed=0):
    """(model, images, labels, loss_fn) for a ResNet-18-style CNN on 3x32x32 images."""
    torch.manual_seed(seed)
    model = ResNet(width, planted=planted)
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(batch, 3, 32, 32, generator=generator)
    y = torch.randint(0, 10, (batch,), generator=generator)
    return model, x, y, nn.CrossEntropyLoss()


def transformer_problem(layers=6, dim=256, heads=8, tokens=64, batch=8, planted=True, seed=0):
    """(model, token ids, labels, loss_fn) for a pre-norm transformer encoder classifier."""
    torch.manual_seed(seed)
    model = Transformer(layers, dim, heads, tokens, planted=planted)
    generator = torch.Generator().manual_seed(seed)
    x = torch.randint(0, 1000, (batch, tokens), generator=generator)
    y = torch.randint(0, 10, (batch,), generator=generator)
    return model, x, y, nn.CrossEntropyLoss()
