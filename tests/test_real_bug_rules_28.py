"""Real-bug batch 28 (fine-tuning pretrained models): a backbone's learning-rate multiplier
that nothing applied (LR_MULTIPLIER_IGNORED), a body given a fine-tuning rate that holds a
fresh random initialisation instead of the pretrained weights (PRETRAINED_WEIGHTS_NOT_LOADED),
and an embedding whose rows repeat across the batch because its ids do (position ids), which
is not a collapsed layer."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import lr_multiplier_key_ignored_by_optimizer as lr_mul  # noqa: E402
from benchmarks.real_bugs import new_head_at_backbone_learning_rate as new_head  # noqa: E402
from benchmarks.real_bugs import pretrained_keys_matched_against_empty_dict as empty_dict  # noqa: E402,E501
from benchmarks.real_bugs import pretrained_weights_reinitialised_after_loading as reinit  # noqa: E402,E501
from benchmarks.real_bugs._common import batches, classification  # noqa: E402
from benchmarks.real_bugs._pretrained import backbone, pretrained_backbone  # noqa: E402
from nndebug.rules.lr_multipliers import ignored_multipliers  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _train(body, groups, steps=20, head=None):
    """A new 10-class head on ``body``, AdamW over ``groups(body, head)``, the digits."""
    torch.manual_seed(0)
    head = head or nn.Linear(64, 10)
    model = nn.Sequential(body, head)
    optimizer = torch.optim.AdamW(groups(body, head))
    x, y = classification()
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


# --- LR_MULTIPLIER_IGNORED ------------------------------------------------------------------
def test_an_unapplied_lr_mul_is_named():
    mon = lr_mul.run(steps=30)
    assert "LR_MULTIPLIER_IGNORED" in _problems(mon)
    found = next(f for f in mon.findings() if f.code == "LR_MULTIPLIER_IGNORED")
    assert found.evidence["groups"][0]["key"] == "lr_mul"


def test_an_applied_lr_mul_is_silent():
    assert "LR_MULTIPLIER_IGNORED" not in _problems(lr_mul.run(fixed=True, steps=30))


def test_a_scale_applied_by_the_loop_is_silent():
    """timm-style layer decay: each group tagged lr_scale, and the loop sets lr = base x
    scale (as timm's schedulers do) before training."""
    def groups(body, head):
        return [{"params": body.parameters(), "lr_scale": 0.1, "lr": 1e-4},
                {"params": head.parameters(), "lr_scale": 1.0, "lr": 1e-3}]
    assert "LR_MULTIPLIER_IGNORED" not in _problems(_train(pretrained_backbone(), groups))


def test_groups_with_other_keys_are_silent():
    """Names and a multiplier of 1 are no multiplier to apply."""
    def groups(body, head):
        return [{"params": body.parameters(), "name": "backbone", "lr_mult": 1.0},
                {"params": head.parameters(), "name": "head"}]
    mon = _train(pretrained_backbone(), groups)
    assert "LR_MULTIPLIER_IGNORED" not in _problems(mon)


def test_ignored_multipliers_compares_the_rates_at_start_and_now():
    rows = [(0, "lr_mult", 0.1, 1e-3), (1, "", None, 1e-3)]
    assert [g for g, *_ in ignored_multipliers(rows, {0: 1e-3, 1: 1e-3})] == [0]
    # applied at the start, then the same rate later (a scheduler's warm restart): applied
    assert ignored_multipliers(rows, {0: 1e-4, 1: 1e-3}) == []
    # two groups tagged alike are not meant to differ
    alike = [(0, "lr_mult", 0.1, 1e-3), (1, "lr_mult", 0.1, 1e-3)]
    assert ignored_multipliers(alike, {0: 1e-3, 1: 1e-3}) == []
    # tagged differently, same rate: ignored
    unlike = [(0, "lr_scale", 0.5, 1e-3), (1, "lr_scale", 0.05, 1e-3)]
    assert len(ignored_multipliers(unlike, {0: 1e-3, 1: 1e-3})) == 2


# --- PRETRAINED_WEIGHTS_NOT_LOADED ----------------------------------------------------------
@pytest.mark.parametrize("case", [empty_dict, reinit])
def test_a_fresh_body_at_a_fine_tuning_rate_is_named(case):
    assert "PRETRAINED_WEIGHTS_NOT_LOADED" in _problems(case.run(steps=20))


@pytest.mark.parametrize("case", [empty_dict, reinit, new_head])
def test_a_loaded_body_at_a_fine_tuning_rate_is_silent(case):
    assert "PRETRAINED_WEIGHTS_NOT_LOADED" not in _problems(case.run(fixed=True, steps=20))


def test_a_fresh_model_at_one_rate_is_silent():
    """Training from scratch: two groups (decay and no decay) at the same rate."""
    def groups(body, head):
        return [{"params": body.parameters(), "lr": 1e-3},
                {"params": head.parameters(), "lr": 1e-3, "weight_decay": 0.0}]
    assert "PRETRAINED_WEIGHTS_NOT_LOADED" not in _problems(_train(backbone(), groups))


def test_a_fresh_head_at_a_faster_rate_is_silent():
    """The new head is fresh by design: only the slow groups are judged."""
    def groups(body, head):
        return [{"params": body.parameters(), "lr": 1e-5},
                {"params": head.parameters(), "lr": 1e-3}]
    mon = _train(pretrained_backbone(), groups, head=nn.Sequential(
        nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10)))
    assert "PRETRAINED_WEIGHTS_NOT_LOADED" not in _problems(mon)


# --- COLLAPSED_ACTIVATIONS and position embeddings ------------------------------------------
class PositionedRows(nn.Module):
    """The 8 rows of a digit as tokens plus a learned position embedding looked up with the
    same ids for every sample (as BERT's position and token-type embeddings are)."""

    def __init__(self, width=32):
        super().__init__()
        self.embed = nn.Linear(8, width)
        self.position = nn.Embedding(8, width)
        self.mix = nn.Linear(width, width)
        self.head = nn.Linear(8 * width, 10)

    def forward(self, rows):
        ids = torch.arange(8).expand(len(rows), -1)
        tokens = self.mix(self.embed(rows) + self.position(ids))
        return self.head(tokens.flatten(1))


def _train_rows(model, steps=30):
    torch.manual_seed(0)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = classification()
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x.reshape(-1, 8, 8), y, steps):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_a_position_embedding_repeated_across_the_batch_is_not_collapsed():
    torch.manual_seed(0)
    assert "COLLAPSED_ACTIVATIONS" not in _problems(_train_rows(PositionedRows()))
    # (before embeddings were left out of the batch check, it named "position" here)
