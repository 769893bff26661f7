"""TRAINING_IN_EVAL_MODE leaves frozen parts alone.

Fine-tuning a head on a frozen backbone puts the backbone in eval mode on purpose (its
batch norm keeps the pretrained statistics, its dropout is off), and a batch norm whose
scale and shift are frozen is the usual "frozen batch norm". Neither is a training loop left
in eval mode. A dropout or batch-norm layer in eval mode inside a part that still trains is.
Both frameworks: the same models built with torch and with minigrad.
"""
import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as mnn
import minigrad.optim as moptim
import nndebug as nd

STEPS = 40


def _data(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(256, 16)).astype(np.float32)
    y = (x[:, :4].argmax(axis=1)).astype(np.int64)
    return x, y


def _build(nn, backbone_frozen, head_eval, affine_frozen=False, affine=True):
    """A backbone (linear, batch norm, ReLU, dropout) and a head (linear, dropout, linear)."""
    backbone = nn.Sequential(nn.Linear(16, 32), nn.BatchNorm1d(32, affine=affine), nn.ReLU(),
                             nn.Dropout(0.2))
    head = nn.Sequential(nn.Linear(32, 32), nn.Dropout(0.2), nn.Linear(32, 4))
    model = nn.Sequential(backbone, head)
    if backbone_frozen:
        for p in backbone.parameters():
            p.requires_grad = False
        backbone.eval()
    if affine_frozen:
        for p in backbone[1].parameters():
            p.requires_grad = False
        backbone[1].eval()
    if head_eval:
        head.eval()
    return model


def _train(framework, **build):
    x, y = _data()
    if framework == "torch":
        torch = pytest.importorskip("torch")
        torch.manual_seed(0)
        model = _build(torch.nn, **build)
        optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.05)
        loss_fn = torch.nn.CrossEntropyLoss()
        tensor = torch.tensor
    else:
        mg.manual_seed(0)
        model = _build(mnn, **build)
        optimizer = moptim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.05)
        loss_fn = mnn.CrossEntropyLoss()
        tensor = mg.tensor
    with nd.watch(model, optimizer) as mon:
        for step in range(STEPS):
            rows = slice((step * 32) % 256, (step * 32) % 256 + 32)
            xb, yb = tensor(x[rows]), tensor(y[rows])
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return [f for f in mon.findings() if f.code == "TRAINING_IN_EVAL_MODE"]


FRAMEWORKS = ["torch", "minigrad"]


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_frozen_backbone_in_eval_mode_is_fine_tuning_not_a_bug(framework):
    assert _train(framework, backbone_frozen=True, head_eval=False) == []


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_frozen_batch_norm_in_eval_mode_inside_a_trained_network_is_silent(framework):
    assert _train(framework, backbone_frozen=False, head_eval=False, affine_frozen=True) == []


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_trained_head_left_in_eval_mode_is_named_even_beside_a_frozen_backbone(framework):
    found = _train(framework, backbone_frozen=True, head_eval=True)
    assert len(found) == 1 and found[0].severity == "warning"
    # only the head's dropout: the frozen backbone's layers are not blamed
    assert found[0].evidence["eval_layers"] == ["1.1"]


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_batch_norm_without_parameters_in_eval_mode_inside_a_trained_part_is_named(framework):
    found = _train(framework, backbone_frozen=False, head_eval=False, affine=False,
                   affine_frozen=True)     # eval() on a batch norm that has no parameters
    assert len(found) == 1 and found[0].evidence["eval_layers"] == ["0.1"]
