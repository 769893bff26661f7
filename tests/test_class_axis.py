"""CLASS_AXIS_SCRAMBLED: class scores flattened without moving the class axis last.

Planted: (N, C, H, W) and (N, C, T) scores flattened with view/reshape. Healthy twins: the
same scores permuted first (a copy, or a contiguous copy viewed), given to the loss whole, and
a language model's (B, T, V) logits viewed flat (the classes are already last).
"""
import pytest

torch = pytest.importorskip("torch")

from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from nndebug.observed import LossCall  # noqa: E402
from nndebug.rules.class_axis import scrambled  # noqa: E402

CLASSES, STEPS = 3, 40


def image_scores(flatten):
    """A tiny fully convolutional net on 6x6 images, its scores flattened by ``flatten``."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, CLASSES, 1))
    x = torch.rand(32, 1, 6, 6)
    y = (x[:, 0] > 0.3).long() + (x[:, 0] > 0.7).long()
    return model, x, y, flatten


def sequence_scores(flatten):
    """A 1-D conv tagger: (N, C, T) scores."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv1d(2, 8, 3, padding=1), nn.ReLU(), nn.Conv1d(8, CLASSES, 1))
    x = torch.rand(32, 2, 10)
    y = (x[:, 0] > 0.5).long() + (x[:, 1] > 0.5).long()
    return model, x, y, flatten


def language_model(flatten):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Embedding(7, 8), nn.Linear(8, 7))
    x = torch.randint(0, 7, (16, 9))
    return model, x, x.roll(-1, dims=1), flatten


def train(model, x, y, flatten):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for _ in range(STEPS):
            optimizer.zero_grad()
            scores = model(x)
            loss = F.cross_entropy(flatten(scores), y.reshape(-1)) if flatten else \
                F.cross_entropy(scores, y)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return [f for f in mon.findings() if f.code == "CLASS_AXIS_SCRAMBLED"]


PLANTED = {
    "image scores viewed flat": image_scores(lambda s: s.view(-1, CLASSES)),
    "image scores reshaped flat": image_scores(lambda s: s.reshape(-1, CLASSES)),
    "tagger scores viewed flat": sequence_scores(lambda s: s.view(-1, CLASSES)),
}
HEALTHY = {
    "image scores permuted, reshaped": image_scores(
        lambda s: s.permute(0, 2, 3, 1).reshape(-1, CLASSES)),
    "image scores permuted, made contiguous, viewed": image_scores(
        lambda s: s.permute(0, 2, 3, 1).contiguous().view(-1, CLASSES)),
    "image scores given whole": image_scores(None),
    "tagger scores transposed, reshaped": sequence_scores(
        lambda s: s.transpose(1, 2).reshape(-1, CLASSES)),
    "language model logits viewed flat": language_model(lambda s: s.view(-1, 7)),
}


@pytest.mark.parametrize("name", PLANTED)
def test_scores_flattened_with_the_class_axis_in_place_are_named(name):
    found = train(*PLANTED[name])
    assert len(found) == 1 and found[0].severity == "warning"
    assert found[0].evidence["viewed_from"][1] == CLASSES
    assert "permute" in found[0].fix


@pytest.mark.parametrize("name", HEALTHY)
def test_scores_flattened_the_right_way_stay_silent(name):
    assert train(*HEALTHY[name]) == []


@pytest.mark.parametrize("viewed_from, shape, expected", [
    ((4, 3, 6, 6), (144, 3), True),      # the bug
    ((4, 6, 6, 3), (144, 3), False),     # classes last: a correct view
    ((4, 3, 6, 3), (216, 3), False),     # the last axis has C too: cannot tell, so silent
    (None, (144, 3), False),             # a copy
    ((4, 3, 36), (4, 108), False),       # not one row per position
    ((2, 3, 6, 6), (144, 3), False),     # sizes that do not match: not this view
])
def test_the_check_on_shapes_alone(viewed_from, shape, expected):
    call = LossCall(step=0, loss="cross_entropy", output_shape=shape, target_shape=None,
                    viewed_from=viewed_from)
    assert scrambled(call) is expected
