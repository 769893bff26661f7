"""Real-bug batch 82 (parameter-efficient fine-tuning written by hand): LoRA factors both
zeroed (NO_GRADIENT, its message naming the two zero factors), bottleneck adapters added
after the optimizer was built (OPTIMIZER_MISSING_PARAMS), LoRA scaled by alpha instead of
alpha / rank (LR_TOO_HIGH: the first-step gradient/weight ratio no longer reads LoRA's
zero-started B as exploding gradients), LoRA factors frozen by a preparation helper
(FROZEN_PARAMETERS: the activation that helper marks requires_grad_() is no longer taken for
an unregistered parameter) and a soft prompt read through ``.data`` (NO_GRADIENT). Fixed
twins silent; healthy look-alikes silent: a LoRA fine-tune with B at zero, a zero-initialised
head, a frozen layer whose output a hook marks as requiring grad. What the changes must not
hide: a tensor really left out of the model next to such a hook, gradients that really
explode at the first step. FROZEN_PARAMETERS' warning for a random stem in front of trained
layers, on a run that learns, now needs 333+ values (below, the moments cannot tell a
uniform draw from a normal one): a small briefly pretrained encoder frozen under a prompt is
silent, a 576-value random backbone still named."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from benchmarks.real_bugs import adapter_added_after_optimizer_built as late  # noqa: E402
from benchmarks.real_bugs import lora_a_and_b_both_initialised_zero as zeros  # noqa: E402
from benchmarks.real_bugs import lora_adapters_frozen_by_training_prep as prep  # noqa: E402
from benchmarks.real_bugs import lora_scaled_by_alpha_not_alpha_over_rank as alpha  # noqa: E402
from benchmarks.real_bugs import soft_prompt_read_through_data as prompt  # noqa: E402
from benchmarks.real_bugs._common import batches, classification, mlp, train_watched  # noqa: E402
from nndebug.monitor.start_parameters import read_start_values  # noqa: E402
from nndebug.observed import Observed  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _first(mon):
    return next(f for f in mon.findings() if f.severity in PROBLEMS)


# --- the planted cases and their twins ------------------------------------------------------

@pytest.mark.parametrize("case, code", [
    (zeros, "NO_GRADIENT"), (late, "OPTIMIZER_MISSING_PARAMS"), (alpha, "LR_TOO_HIGH"),
    (prep, "FROZEN_PARAMETERS"), (prompt, "NO_GRADIENT")])
def test_the_planted_case_is_named_first_and_its_twin_is_silent(case, code):
    assert _first(case.run()).code == code
    assert _problems(case.run(fixed=True)) == set()


def test_two_zero_factors_are_named_in_the_no_gradient_message():
    found = [f for f in zeros.run(steps=40).findings() if f.code == "NO_GRADIENT"]
    assert found and set(found[0].evidence["started_zero"]) == \
        {"0.lora_A", "0.lora_B", "2.lora_A", "2.lora_B"}
    assert "LoRA" in found[0].message and "A random, B zero" in found[0].fix


def test_the_frozen_prep_helper_raises_no_unregistered_parameter_on_either_run():
    for fixed in (False, True):
        assert "UNREGISTERED_PARAMETERS" not in _problems(prep.run(fixed=fixed, steps=60))


# --- variants ---------------------------------------------------------------------------------

def _pretrained():
    x, y = classification()
    return x, y, zeros.pretrained_base(x[:-297], y[:-297])


def test_a_bottleneck_adapter_with_both_projections_zero_is_named():
    """Variant: Houlsby adapters whose down- and up-projections (weights and biases) an init
    loop zeroed: only the up-projection's bias still learns."""
    x, y, model = _pretrained()
    model = late.add_adapters(model)
    for name, p in model.named_parameters():
        if p.requires_grad:
            nn.init.zeros_(p)
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, 80))
    found = [f for f in mon.findings() if f.code == "NO_GRADIENT"]
    assert found and len(found[0].evidence["started_zero"]) == 6
    assert not any(n.endswith("up.bias") for n in found[0].evidence["parameters"])


def test_lora_added_after_the_optimizer_is_named():
    """Variant: LoRA factors (not bottleneck adapters) added after Adam took the base's."""
    x, y, model = _pretrained()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    model.requires_grad_(False)
    zeros.add_lora(model)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, 80))
    assert _first(mon).code == "OPTIMIZER_MISSING_PARAMS"


def test_alpha_not_divided_by_a_rank_of_eight_is_named(monkeypatch):
    """Variant: the report's own default, rank 8 and alpha 16 (x8), at Adam 3e-2."""
    monkeypatch.setattr(alpha, "RANK", 8)
    monkeypatch.setattr(alpha, "ALPHA", 16)
    x, y, model = _pretrained()
    model.requires_grad_(False)
    torch.manual_seed(0)
    for i, layer in enumerate(model):
        if isinstance(layer, nn.Linear):
            model[i] = alpha.LoRALinear(layer, False, rank=8, alpha=16)
    adapters = [p for n, p in model.named_parameters() if "lora" in n]
    mon = train_watched(model, torch.optim.Adam(adapters, lr=3e-2), nn.CrossEntropyLoss(),
                        batches(x, y, 150))
    assert _first(mon).code == "LR_TOO_HIGH"
    assert "alpha / rank" in _first(mon).fix


def test_a_soft_prompt_read_through_detach_is_named():
    """Variant: the prompt read through .detach() instead of .data."""
    x, y = classification()
    encoder = prompt.pretrained_encoder(x[:-297], y[:-297])
    torch.manual_seed(0)
    model = prompt.PromptTuned(encoder, fixed=True)

    def forward(batch):
        t = model.encoder.tokens(batch)
        p = model.prompt.detach()
        t = torch.cat([p.expand(len(t), -1, -1), t], dim=1)
        return model.head(model.encoder.layer(t).mean(1))
    model.forward = forward
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, 120))
    assert _first(mon).code == "NO_GRADIENT"


# --- healthy look-alikes ----------------------------------------------------------------------

def test_a_zero_initialised_head_is_silent():
    """A plain MLP whose last layer starts at zero (a common, healthy choice): its first
    steps' gradient/weight ratio is huge, and nothing is wrong."""
    torch.manual_seed(0)
    model = mlp()
    nn.init.zeros_(model[2].weight)
    nn.init.zeros_(model[2].bias)
    x, y = classification()
    mon = train_watched(model, torch.optim.Adam(model.parameters(), lr=1e-3),
                        nn.CrossEntropyLoss(), batches(x, y, 150))
    assert _problems(mon) == set()
    assert ("2.weight", [10, 64]) in [tuple(r) for r in mon.run.observed.zero_start_parameters]


def test_a_hook_marking_a_frozen_layers_output_is_not_an_unregistered_parameter():
    """enable_input_require_grads: a frozen first layer whose output a forward hook marks
    requires_grad_() (for checkpointed blocks); the layers after it train normally."""
    torch.manual_seed(0)
    model = mlp()
    model[0].requires_grad_(False)
    model[0].register_forward_hook(lambda m, a, out: out.requires_grad_(True))
    x, y = classification()
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, 60))
    assert "UNREGISTERED_PARAMETERS" not in _problems(mon)
    assert not mon.run.observed.unregistered


def test_a_tensor_left_out_of_the_model_is_still_named_next_to_such_a_hook():
    """What the hook exemption must not hide: a learned scale kept as a plain tensor."""
    class Scaled(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = mlp()
            self.scale = torch.ones(10, requires_grad=True)     # not a Parameter

        def forward(self, x):
            return self.net(x) * self.scale
    torch.manual_seed(0)
    model = Scaled()
    model.net[0].requires_grad_(False)
    model.net[0].register_forward_hook(lambda m, a, out: out.requires_grad_(True))
    x, y = classification()
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, 40))
    assert [u.kind for u in mon.run.observed.unregistered] == ["tensor"]


def test_gradients_exploding_at_the_first_step_are_still_named():
    """What leaving zero-started weights out must not hide: weights scaled up 30x."""
    torch.manual_seed(0)
    model = nn.Sequential(*[m for _ in range(3) for m in (nn.Linear(64, 64), nn.ReLU())],
                          nn.Linear(64, 10))
    with torch.no_grad():
        for m in model:
            if isinstance(m, nn.Linear):
                m.weight.mul_(30)
    x, y = classification()
    mon = train_watched(model, torch.optim.SGD(model.parameters(), lr=0.1),
                        nn.CrossEntropyLoss(), batches(x, y, 40))
    assert any(f.code == "EXPLODING_GRADIENTS" for f in mon.findings())


# --- the start read ----------------------------------------------------------------------------

def test_the_start_read_keeps_trainable_all_zero_parameters_only():
    from nndebug.adapters import adapt
    model = nn.Sequential(nn.Linear(4, 3), nn.Linear(3, 2))
    nn.init.zeros_(model[1].weight)
    nn.init.zeros_(model[0].bias)
    model[0].bias.requires_grad_(False)          # frozen zeros: not an adapter's factor
    observed, errors = Observed(), []
    read_start_values(adapt(model), observed, errors.append)
    assert not errors
    assert observed.zero_start_parameters == [("1.weight", [2, 3])]


def test_zero_start_rows_survive_a_saved_run(tmp_path):
    import nndebug as nd
    mon = zeros.run(steps=20)
    path = tmp_path / "run.nddebug"
    mon.save(path)
    rows = nd.load_run(path).run.observed.zero_start_parameters
    assert [list(r) for r in rows] == [list(r) for r in mon.run.observed.zero_start_parameters]
    assert len(rows) == 4 and all(isinstance(r[0], str) for r in rows)


# --- FROZEN_PARAMETERS' stem warning on a run that learns ------------------------------------

def test_a_small_pretrained_encoder_frozen_under_a_prompt_is_silent():
    """Look-alike: the prompt case's fixed twin at seeds shifted by 1000 - its frozen 32x8
    embedding (256 values), trained briefly, has moments inside a fresh normal draw's wide
    3-sigma bands; too few values to call it a random stem on a run that learns."""
    from benchmarks.bench_real_bugs import shifted_seeds
    from nndebug.rules.structure import FRESH_STEM_MIN_VALUES
    assert 256 < FRESH_STEM_MIN_VALUES < 576
    with shifted_seeds(1000):
        mon = prompt.run(fixed=True)
    assert "FROZEN_PARAMETERS" not in _problems(mon)


def test_a_random_frozen_stem_of_576_values_is_still_named():
    """What the minimum must not hide: a backbone frozen before its weights were loaded."""
    from benchmarks.real_bugs import frozen_random_backbone as backbone
    found = [f for f in backbone.run().findings() if f.code == "FROZEN_PARAMETERS"]
    assert found and found[0].severity == "warning"
    assert found[0].evidence["in_front_of_trained_layers"]
