"""Checks that scale with a model's structure, not its element count: gradcheck's joint
direction and locate's scalable strategy, on small versions of the benchmark's ResNet-18-
style CNN and 6-layer transformer (``benchmarks/scale_models.py``; the real sizes run in
``benchmarks/bench_locate.py``), each with a hand-written backward that drops a term, and
their correct twins."""
import importlib

import pytest
import torch

import nndebug as nd
from benchmarks.scale_models import (PLANTED_RESNET_MODULE, planted_transformer_module,
                                     resnet_problem, transformer_problem)

pytestmark = pytest.mark.usefixtures("one_torch_thread")

SMALL = {
    "resnet": lambda planted: resnet_problem(width=8, batch=4, planted=planted),
    "transformer": lambda planted: transformer_problem(layers=2, dim=32, heads=4, tokens=16,
                                                       batch=4, planted=planted),
}
PLANTED_AT = {"resnet": PLANTED_RESNET_MODULE, "transformer": planted_transformer_module(2)}


@pytest.mark.parametrize("name", sorted(SMALL))
def test_the_joint_direction_flags_the_planted_backward_and_passes_the_twin(name):
    planted = nd.gradcheck(*SMALL[name](True), mode="joint")
    twin = nd.gradcheck(*SMALL[name](False), mode="joint")
    assert not planted.passed and twin.passed, (str(planted), str(twin))
    assert planted.n_forward <= 8 and twin.n_forward <= 8     # whatever the model's size
    assert [f.code for f in planted.findings if f.severity == "error"] == ["BACKWARD_MISMATCH"]


@pytest.mark.parametrize("name", sorted(SMALL))
def test_scalable_locate_names_the_module_and_stays_quiet_on_the_twin(name):
    planted = nd.locate(*SMALL[name](True), strategy="scalable")
    twin = nd.locate(*SMALL[name](False), strategy="scalable")
    assert [s.module for s in planted.suspects] == [PLANTED_AT[name]], str(planted)
    assert planted.suspects[0].wrt == "input"
    assert not twin.suspects, str(twin)
    assert planted.n_forward <= 2          # one recorded pass; the rest are single modules


def test_a_wrong_gradient_in_a_small_tensor_is_not_drowned_by_big_ones():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.Tanh(), torch.nn.Linear(256, 3))
    model[2].bias.register_hook(lambda g: g * 0.9)       # 3 of 17k elements, 10% off
    x, y = torch.randn(16, 64), torch.randint(0, 3, (16,))
    assert not nd.gradcheck(model, x, y, torch.nn.CrossEntropyLoss(), mode="joint").passed


def test_the_tensors_closest_to_the_output_are_checked_alone_within_the_budget():
    report = nd.gradcheck(*SMALL["resnet"](True), mode="joint", tensor_budget=2)
    alone = [c for c in report.checks if c.method == "directional"]
    assert sorted(c.name for c in alone) == ["head.bias", "head.weight"]
    assert all(c.passed for c in alone)        # downstream of the bug: still right


def test_auto_switches_to_the_scalable_checks_for_large_models(monkeypatch):
    # (nndebug.gradcheck is also the name of the function: reach the modules by path)
    monkeypatch.setattr(importlib.import_module("nndebug.gradcheck"), "LARGE_MODEL", 1000)
    monkeypatch.setattr(importlib.import_module("nndebug.locate"), "LARGE_MODEL", 1000)
    problem = SMALL["resnet"](True)
    assert nd.gradcheck(*problem).mode == "joint"
    assert nd.locate(*problem).n_forward <= 2
