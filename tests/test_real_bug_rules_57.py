"""Real-bug batch 57 (vision transformers and image models built by hand): a block's skip
joined with ``*`` (RESIDUAL_MULTIPLIED), an attention softmax over every head's keys at once
(SOFTMAX_ACROSS_HEADS), and patches cut from, or pasted back into, an image by one reshape
(RESHAPE_USED_AS_TRANSPOSE, from the patch grid's numbers: no longer only when the batch
size happens to make the shapes look like a transpose). The fixed twins stay silent, and so
do the healthy look-alikes a careless rule would flag: gates (squeeze-and-excitation, SwiGLU,
a SiLU written by hand), FiLM conditioning, a deep-and-cross layer (x0 * lin(x0) + x0),
LayerScale; attention pooled over flattened pixels, slot attention's softmax over slots,
a correct multi-head attention; a conv patch embedding, rows read as tokens, a flatten,
PixelShuffle."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from benchmarks.real_bugs import attention_softmax_across_heads as heads  # noqa: E402
from benchmarks.real_bugs import dense_vit_unpatchified_with_reshape as dense  # noqa: E402
from benchmarks.real_bugs import images_normalised_twice as twice  # noqa: E402
from benchmarks.real_bugs import vit_block_mlp_residual_multiplied as multiplied  # noqa: E402
from benchmarks.real_bugs import (  # noqa: E402
    vit_class_token_and_positions_sized_by_batch as by_batch)
from benchmarks.real_bugs._common import batches, classification, train_watched  # noqa: E402
from benchmarks.real_bugs._vision import encoder, patches  # noqa: E402
from nndebug.monitor.graph_walks import nodes_under  # noqa: E402
from nndebug.monitor.head_softmaxes import find_head_softmaxes  # noqa: E402
from nndebug.monitor.multiplied_skips import find_multiplied_skips  # noqa: E402
from nndebug.monitor.patch_grid_reshapes import find_patch_grid_reshapes, patch_side  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _found(mon, code):
    return [f for f in mon.findings() if f.code == code and f.severity in PROBLEMS]


def _nodes(model, *inputs):
    torch.manual_seed(0)
    out = model(*inputs)
    return nodes_under([out.grad_fn])


def _digits(n=32):
    x, y = classification(images=True)
    return x[:n], y[:n]


# --- the planted cases -----------------------------------------------------------------

def test_a_mlp_skip_joined_with_a_product_is_named():
    found = _found(multiplied.run(steps=12), "RESIDUAL_MULTIPLIED")
    assert found and found[0].evidence["products"] == 4          # one per block
    assert found[0].evidence["shapes"][0] == [64, 17, 32]


def test_a_softmax_over_every_heads_keys_is_named():
    found = _found(heads.run(steps=12), "SOFTMAX_ACROSS_HEADS")
    assert found and found[0].evidence["normalised_over"] == 8 * 17
    assert found[0].evidence["contracted"] == 17 and found[0].evidence["pieces"] == 8


@pytest.mark.parametrize("batch_size", [64, 32])
def test_per_patch_outputs_pasted_by_one_reshape_are_named(batch_size):
    torch.manual_seed(0)
    x, digits = classification(images=True)
    model = dense.DenseViT(fixed=False)
    mon = train_watched(model, torch.optim.AdamW(model.parameters(), lr=3e-3),
                        nn.CrossEntropyLoss(),
                        batches(x, dense.pixel_labels(x, digits), 8, batch_size))
    found = _found(mon, "RESHAPE_USED_AS_TRANSPOSE")
    assert found and found[0].evidence["patch"] == 2
    assert found[0].evidence["output_shape"] == [batch_size, 8, 8, 11]


class HybridViewPatchViT(nn.Module):
    """A hybrid ViT (a conv stem, then patches of its map) whose patch tokens are made with
    x.view(B, num_patches, -1) (duoan/TorchCode#21), or cut right. On raw input images the
    view has no graph and is not seen (module doc of monitor/patch_grid_reshapes.py)."""

    def __init__(self, cut_right, channels=3, dim=32, patch=2):
        super().__init__()
        self.cut_right, self.patch = cut_right, patch
        self.stem = nn.Conv2d(1, channels, 3, padding=1)
        self.embed = nn.Linear(channels * patch * patch, dim)
        self.position = nn.Parameter(torch.zeros(1, 16, dim))
        self.encoder, self.head = encoder(dim, depth=1), nn.Linear(dim, 10)

    def forward(self, images):
        maps = torch.relu(self.stem(images))
        tokens = patches(maps, self.patch) if self.cut_right else maps.view(len(maps), 16, -1)
        return self.head(self.encoder(self.embed(tokens) + self.position).mean(1))


@pytest.mark.parametrize("cut_right", [False, True])
def test_patches_cut_by_one_view_are_named_and_cut_right_are_not(cut_right):
    torch.manual_seed(0)
    x, y = classification(images=True)
    model = HybridViewPatchViT(cut_right)
    mon = train_watched(model, torch.optim.AdamW(model.parameters(), lr=3e-3),
                        nn.CrossEntropyLoss(), batches(x, y, 8))
    found = _found(mon, "RESHAPE_USED_AS_TRANSPOSE")
    assert bool(found) is not cut_right
    if found:
        assert found[0].evidence["input_shape"] == [64, 3, 8, 8]
        assert found[0].evidence["patch"] == 2


@pytest.mark.parametrize("case", [multiplied, heads, dense, by_batch, twice])
def test_the_fixed_twins_are_silent(case):
    assert not _problems(case.run(fixed=True))


# --- RESIDUAL_MULTIPLIED: healthy products stay silent ---------------------------------

class SqueezeExcite(nn.Module):
    def __init__(self, channels=8):
        super().__init__()
        self.conv = nn.Conv2d(1, channels, 3, padding=1)
        self.gate = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                                  nn.Linear(channels, 4), nn.ReLU(), nn.Linear(4, channels))

    def forward(self, x):
        h = torch.relu(self.conv(x))
        return h * torch.sigmoid(self.gate(h))[:, :, None, None]


class SwiGLU(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.norm, self.w1, self.w2 = nn.LayerNorm(dim), nn.Linear(dim, 32), nn.Linear(dim, 32)
        self.w3 = nn.Linear(32, dim)

    def forward(self, x):
        h = self.norm(x)
        return x + self.w3(nn.functional.silu(self.w1(h)) * self.w2(h))


class HandSwish(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.linear = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.linear(x)
        return h * torch.sigmoid(h)


class FiLM(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.features, self.gamma, self.beta = nn.Linear(dim, dim), nn.Linear(4, dim), \
            nn.Linear(4, dim)

    def forward(self, x, condition):
        h = self.features(x)
        return h * self.gamma(condition) + self.beta(condition)


class CrossLayers(nn.Module):
    """Deep-and-cross: x_{l+1} = x0 * (W x_l + b) + x_l, twice."""

    def __init__(self, dim=16):
        super().__init__()
        self.first, self.second = nn.Linear(dim, dim), nn.Linear(dim, dim)

    def forward(self, x0):
        x1 = x0 * self.first(x0) + x0
        return x0 * self.second(x1) + x1


class LayerScale(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.norm, self.mlp = nn.LayerNorm(dim), nn.Linear(dim, dim)
        self.gamma = nn.Parameter(torch.full((dim,), 0.1))

    def forward(self, x):
        return x + self.gamma * self.mlp(self.norm(x))


@pytest.mark.parametrize("model, inputs", [
    (SqueezeExcite(), (torch.rand(4, 1, 8, 8),)),
    (SwiGLU(), (torch.randn(4, 5, 16),)),
    (HandSwish(), (torch.randn(4, 16),)),
    (FiLM(), (torch.randn(4, 16), torch.randn(4, 4))),
    (CrossLayers(), (torch.randn(4, 16),)),
    (LayerScale(), (torch.randn(4, 5, 16),)),
])
def test_gates_conditioning_and_cross_layers_are_not_multiplied_skips(model, inputs):
    assert find_multiplied_skips(_nodes(model, *inputs)) == []


def test_a_product_with_a_branch_of_its_own_input_is_found():
    class Gated(nn.Module):
        def __init__(self, dim=16):
            super().__init__()
            self.inner, self.norm, self.mlp = nn.Linear(dim, dim), nn.LayerNorm(dim), \
                nn.Linear(dim, dim)

        def forward(self, x):
            x = torch.tanh(self.inner(x))
            return x * self.mlp(self.norm(x))

    assert find_multiplied_skips(_nodes(Gated(), torch.randn(4, 5, 16))) == [(4, 5, 16)]


# --- SOFTMAX_ACROSS_HEADS: healthy softmaxes stay silent --------------------------------

class PixelAttentionPool(nn.Module):
    """Attention pooling over a feature map's flattened pixels, contracted whole."""

    def __init__(self, channels=8):
        super().__init__()
        self.conv, self.score = nn.Conv2d(1, channels, 3, padding=1), nn.Conv2d(channels, 2, 1)

    def forward(self, x):
        features = self.conv(x)                                   # (B, C, H, W)
        weights = self.score(features).flatten(2).softmax(-1)     # (B, 2, H * W)
        return weights @ features.flatten(2).transpose(1, 2)      # (B, 2, C)


class SlotAttention(nn.Module):
    """Softmax over the slots (dim 1), applied over the inputs: no merged axis."""

    def __init__(self, dim=16, slots=4):
        super().__init__()
        self.slots = nn.Parameter(torch.randn(1, slots, dim))
        self.k, self.v = nn.Linear(dim, dim), nn.Linear(dim, dim)

    def forward(self, x):
        attn = (self.slots @ self.k(x).transpose(1, 2)).softmax(dim=1)
        attn = attn / attn.sum(-1, keepdim=True)
        return attn @ self.v(x)


class MaskHeadFixed(nn.Module):
    """DETR's mask attention done right: per head over (h, w), then used by a product that
    contracts h * w."""

    def __init__(self, heads=4, channels=8):
        super().__init__()
        self.heads, self.conv = heads, nn.Conv2d(1, heads * channels, 3, padding=1)
        self.query = nn.Parameter(torch.randn(1, 3, heads, channels))

    def forward(self, x):
        b = len(x)
        keys = self.conv(x).view(b, self.heads, -1, 8, 8)                # (b, n, c, h, w)
        weights = torch.einsum("bqnc,bnchw->bqnhw", self.query.expand(b, -1, -1, -1), keys)
        weights = weights.flatten(3).softmax(-1)                        # (b, q, n, h * w)
        values = keys.flatten(3).transpose(2, 3).unsqueeze(1)           # (b, 1, n, h * w, c)
        return weights.unsqueeze(-2) @ values


@pytest.mark.parametrize("model, inputs", [
    (PixelAttentionPool(), (torch.rand(4, 1, 8, 8),)),
    (SlotAttention(), (torch.randn(4, 10, 16),)),
    (MaskHeadFixed(), (torch.rand(4, 1, 8, 8),)),
    (heads.ViT(fixed=True), (_digits()[0],)),
])
def test_softmaxes_over_their_own_keys_are_not_flagged(model, inputs):
    assert find_head_softmaxes(_nodes(model, *inputs)) == []


def test_the_mask_head_flattened_over_its_heads_is_found_when_a_product_applies_it():
    class MaskHeadBug(MaskHeadFixed):
        def forward(self, x):
            b = len(x)
            keys = self.conv(x).view(b, self.heads, -1, 8, 8)
            weights = torch.einsum("bqnc,bnchw->bqnhw", self.query.expand(b, -1, -1, -1), keys)
            weights = weights.flatten(2).softmax(-1).view(weights.shape).flatten(3)
            values = keys.flatten(3).transpose(2, 3).unsqueeze(1)
            return weights.unsqueeze(-2) @ values

    found = find_head_softmaxes(_nodes(MaskHeadBug(), torch.rand(4, 1, 8, 8)))
    assert found and found[0][:2] == (4 * 64, 64)


# --- patch grids: healthy reshapes stay silent ------------------------------------------

class ConvPatchEmbed(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.proj = nn.Conv2d(3, dim, 2, stride=2)

    def forward(self, x):
        return self.proj(x).flatten(2).transpose(1, 2)


class RowsAsTokens(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(8, 16, batch_first=True)

    def forward(self, x):
        return self.rnn(x.view(len(x), 8, 8))[0]


class SequenceFirstAttention(nn.Module):
    """nn.MultiheadAttention on (T, B, E) = (32, 32, 32) with 2 heads: its head split
    (T, B, E) -> (T, B * 2, 16) has a patch grid's numbers, and is transposed right away."""

    def __init__(self):
        super().__init__()
        self.attention = nn.MultiheadAttention(32, 2)

    def forward(self, x):
        return self.attention(x, x, x, need_weights=False)[0]


@pytest.mark.parametrize("model, inputs", [
    (SequenceFirstAttention(), (torch.randn(32, 32, 32, requires_grad=True),)),
    (ConvPatchEmbed(), (torch.rand(4, 3, 8, 8),)),
    (RowsAsTokens(), (torch.rand(4, 1, 8, 8),)),
    (nn.Sequential(nn.Flatten(), nn.Linear(192, 10)), (torch.rand(4, 3, 8, 8),)),
    (nn.Sequential(nn.Conv2d(3, 12, 1), nn.PixelShuffle(2)), (torch.rand(4, 3, 8, 8),)),
    (dense.DenseViT(fixed=True), (_digits()[0],)),
])
def test_healthy_image_reshapes_cut_no_patch_grid(model, inputs):
    assert find_patch_grid_reshapes(_nodes(model, *inputs)) == []


@pytest.mark.parametrize("before, after, patch", [
    ([64, 16, 4, 11], [64, 8, 8, 11], 2),       # per-patch outputs pasted (DeepSatModels#22)
    ([64, 3, 8, 8], [64, 16, 12], 2),          # RGB images cut by view (TorchCode#21)
    ([8, 3, 32, 32], [8, 64, 48], 4),
    ([64, 1, 28, 28], [64, 28, 28], None),     # rows as tokens
    ([64, 17, 32], [64, 17, 4, 8], None),      # a head split
    ([64, 32, 8, 8], [64, 32, 64], None),      # a flatten
    ([32, 32, 4, 8], [32, 4, 32, 8], None),    # two axes swapped (transposing_reshapes)
    ([256, 16, 16], [64, 1024], None),         # windows merged with the batch
])
def test_patch_side_reads_the_grid_numbers(before, after, patch):
    assert patch_side(before, after) == patch
