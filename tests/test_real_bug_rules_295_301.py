"""Real-bug batches 295, 296 (similarity heads) and 301 (ensembles by hand).

TARGETS_OUTSIDE_OUTPUT_RANGE without a squashing layer (``rules/target_kinds.py``): a cosine
similarity regressed on raw scores - its outputs never leave [-1, 1] and end pressed against
1 while most targets lie far above. Named on both batch cases and a planted loop; silent on
their twins (the targets scaled into the similarity's range), and on a linear regressor
whose targets reach beyond 1 (its outputs pass the bound).

UNREGISTERED_PARAMETERS for a model that registers no parameter while its optimizer holds
some (``rules/structure.py``, ``model_without_parameters``): an ensemble's members in a plain
list. The monitor no longer fails on such a model (``monitor/restored_checkpoints.py``: no
float state to fingerprint).
"""
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import (  # noqa: E402
    content_towers_normalised_dot_regresses_star_ratings as ratings_case)
from benchmarks.real_bugs import ensemble_members_in_plain_list_miss_eval as ensemble_case  # noqa: E402
from benchmarks.real_bugs import sts_scores_zero_to_five_fed_to_cosine_loss as sts_case  # noqa: E402
from benchmarks.real_bugs._common import batches, classification  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
RANGE = "TARGETS_OUTSIDE_OUTPUT_RANGE"


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def _pair_regression(cosine, scale, steps=200):
    """Two views of a digit (its two halves) embedded by one tower; the target is how alike
    the two digits' values are, 0..scale. ``cosine``: the prediction is the embeddings'
    cosine similarity, else a linear head on their product."""
    x, y = classification()
    torch.manual_seed(0)
    tower = nn.Sequential(nn.Linear(64, 32), nn.Tanh(), nn.Linear(32, 16))
    head = nn.Linear(16, 1)
    model = nn.ModuleDict({"tower": tower, "head": head})
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, steps, batch_size=64):
            other = torch.roll(torch.arange(len(xb)), 1)
            a, b = tower(xb), tower(xb[other])
            target = scale * (1 - (yb - yb[other]).abs().float() / 9)
            pred = F.cosine_similarity(a, b) if cosine else head(a * b).squeeze(1)
            loss = F.mse_loss(pred, target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_a_cosine_regressed_on_scores_up_to_five_is_named():
    found = [f for f in _pair_regression(cosine=True, scale=5.0).findings() if f.code == RANGE]
    assert found and found[0].evidence["bound_pressed"] == 1.0
    assert found[0].evidence["target_max"] > 4


def test_a_cosine_on_scores_scaled_into_its_range_is_silent():
    assert RANGE not in _problems(_pair_regression(cosine=True, scale=1.0))


def test_a_free_head_on_scores_up_to_five_is_silent():
    assert RANGE not in _problems(_pair_regression(cosine=False, scale=5.0))


@pytest.mark.parametrize("case", [sts_case, ratings_case])
def test_the_batch_cases_are_named_and_their_twins_are_silent(case):
    assert RANGE in _problems(case.run())
    assert not _problems(case.run(fixed=True))


def test_a_model_of_nothing_trained_through_its_members_is_named():
    mon = ensemble_case.run()
    found = [f for f in mon.findings() if f.code == "UNREGISTERED_PARAMETERS"]
    assert found and found[0].evidence == {"model_parameters": 0, "optimizer_parameters": 18}
    assert not [f for f in mon.findings() if f.code == "MONITOR_ERROR"]
    assert not _problems(ensemble_case.run(fixed=True))
