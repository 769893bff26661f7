"""Real-bug batch 43 (model wiring inside forward): a block whose input an in-place
activation rewrites before the block adds it back as its skip
(RESIDUAL_INPUT_MODIFIED_IN_PLACE), and one batch norm called at two sites of a forward
whose activations differ (NORM_STATISTICS_SHARED_ACROSS_SITES).

The planted reports are named and their fixed twins stay silent; so do healthy models
that look alike: a ResNet basic block with in-place ReLUs on its own tensors, a body that
starts with an in-place ReLU but adds no skip, a residual written as ``x += f(x)``, a
siamese encoder running one norm on two inputs of one kind, a norm called once, a norm
called twice only in evaluation. The family's other shapes are named too: ``identity = x;
out = self.relu(x)`` in a conv block (iduta/iresnet#2), ``F.relu_``, and ``self.bn1``
written where ``self.bn2`` was meant."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import batchnorm_shared_with_shared_layer as shared_norm  # noqa: E402
from benchmarks.real_bugs import residual_input_overwritten_by_inplace_relu as vqvae  # noqa: E402,E501
from benchmarks.real_bugs._common import batches, classification  # noqa: E402
from nndebug.monitor.in_place_skip_inputs import adds_directly  # noqa: E402
from nndebug.monitor.shared_norm_sites import separation  # noqa: E402
from nndebug.rules.shared_norm_sites import NORM_SITES_MEAN_GAP, NORM_SITES_SPREAD_RATIO  # noqa: E402,E501

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
IN_PLACE = "RESIDUAL_INPUT_MODIFIED_IN_PLACE"
SHARED = "NORM_STATISTICS_SHARED_ACROSS_SITES"
STEPS = 8


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _train(model, steps=STEPS, images=False, pair=False):
    """A few Adam steps of ``model`` on the digits under watch; the closed monitor."""
    torch.manual_seed(0)
    x, y = classification(images=images)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            out = model(xb[:32], xb[32:]) if pair else model(xb)
            loss = F.cross_entropy(out, yb[:32] if pair else yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


# --- RESIDUAL_INPUT_MODIFIED_IN_PLACE ------------------------------------------------------
def test_the_vq_vae_block_is_named_and_its_fixed_twin_is_silent():
    mon = vqvae.run(steps=STEPS)
    assert IN_PLACE in _problems(mon)
    finding = next(f for f in mon.findings() if f.code == IN_PLACE)
    assert [block for block, _ in finding.evidence["blocks"]] == ["1", "2"]
    assert finding.evidence["activation"] == "ReluBackward0"
    assert IN_PLACE not in _problems(vqvae.run(fixed=True, steps=STEPS))


class PreActivationBlock(nn.Module):
    """iresnet's middle block: ``identity = x; out = self.relu(x)``."""
    def __init__(self, channels, inplace):
        super().__init__()
        self.relu = nn.ReLU(inplace=inplace)
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.bn = nn.BatchNorm2d(channels)

    def forward(self, x):
        identity = x
        out = self.relu(x)
        out = self.bn(self.conv(out))
        out += identity
        return out


def _conv_net(block):
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), block,
                         nn.Flatten(), nn.Linear(4 * 64, 10))


def test_identity_kept_by_name_then_relu_in_place_is_named():
    mon = _train(_conv_net(PreActivationBlock(4, inplace=True)), images=True)
    assert IN_PLACE in _problems(mon)
    assert IN_PLACE not in _problems(_train(_conv_net(PreActivationBlock(4, inplace=False)),
                                            images=True))


class FunctionalBlock(nn.Module):
    def __init__(self, width, leaky):
        super().__init__()
        self.leaky = leaky
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        h = F.leaky_relu_(x, 0.1) if self.leaky else F.relu_(x)
        return self.fc(h) + x


def test_a_functional_in_place_activation_is_named_too():
    for leaky in (False, True):
        model = nn.Sequential(nn.Linear(64, 16), FunctionalBlock(16, leaky), nn.Linear(16, 10))
        mon = _train(model)
        assert IN_PLACE in _problems(mon), leaky
        finding = next(f for f in mon.findings() if f.code == IN_PLACE)
        assert ("LeakyReLU" if leaky else "ReLU") in finding.message


class BasicBlock(nn.Module):
    """torchvision's BasicBlock: in-place ReLUs on the block's own tensors only."""
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += identity
        return self.relu(out)


class NoSkip(nn.Module):
    """A body that starts with an in-place ReLU on its input, and no skip."""
    def __init__(self, width):
        super().__init__()
        self.body = nn.Sequential(nn.ReLU(inplace=True), nn.Linear(width, width))

    def forward(self, x):
        return self.body(x)


class InPlaceResidual(nn.Module):
    """``x += f(x)``: the input changed in place by the residual's own addition."""
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        x += self.fc(torch.relu(x))
        return x


def test_healthy_blocks_with_in_place_operations_stay_silent():
    assert IN_PLACE not in _problems(_train(_conv_net(nn.Sequential(BasicBlock(4), BasicBlock(4))),
                                            images=True))
    model = nn.Sequential(nn.Linear(64, 16), NoSkip(16), nn.ReLU(), nn.Linear(16, 10))
    assert IN_PLACE not in _problems(_train(model))
    model = nn.Sequential(nn.Linear(64, 16), InPlaceResidual(16), nn.Linear(16, 10))
    assert IN_PLACE not in _problems(_train(model))


def test_an_addition_is_found_only_when_it_reads_the_node_itself():
    x = torch.randn(4, 3, requires_grad=True)
    h = x * 2
    a = torch.relu(h)
    assert adds_directly([(a.sum() + (a + 1).sum()).grad_fn], a.grad_fn)   # (a + 1) reads a
    assert not adds_directly([(a * 3).sum().grad_fn], a.grad_fn)
    assert not adds_directly([(torch.relu(h) * 1 + h).grad_fn], a.grad_fn)   # another relu


# --- NORM_STATISTICS_SHARED_ACROSS_SITES ---------------------------------------------------
def test_the_tabnet_shared_norm_is_named_and_its_fixed_twin_is_silent():
    mon = shared_norm.run(steps=STEPS)
    assert SHARED in _problems(mon)
    finding = next(f for f in mon.findings() if f.code == SHARED)
    assert finding.evidence["norm"] == "steps.0.block.1" and finding.evidence["calls"] == 2
    assert finding.evidence["spread_ratio"] >= NORM_SITES_SPREAD_RATIO
    assert SHARED not in _problems(shared_norm.run(fixed=True, steps=STEPS))


class TwoConvs(nn.Module):
    """Two conv layers of one width, each with a batch norm; ``typo``: bn1 after both. The
    second conv's output is put on another scale (x 4 + 2), as a deeper layer's activations
    often sit elsewhere: the two sites are clearly apart (a plain copy of this net has sites
    0.2-1.5 deviations apart depending on the seed, named on about half of them)."""
    def __init__(self, typo):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.bn2 = nn.BatchNorm2d(8)
        self.typo = typo
        self.head = nn.Linear(8 * 64, 10)

    def forward(self, x):
        h = torch.relu(self.bn1(self.conv1(x)))
        h = torch.relu((self.bn1 if self.typo else self.bn2)(self.conv2(h) * 4 + 2))
        return self.head(h.flatten(1))


def test_bn1_written_where_bn2_was_meant_is_named():
    torch.manual_seed(0)
    mon = _train(TwoConvs(typo=True), images=True)
    assert SHARED in _problems(mon)
    finding = next(f for f in mon.findings() if f.code == SHARED)
    assert finding.evidence["norm"] == "bn1" and finding.evidence["mean_gap"] >= NORM_SITES_MEAN_GAP
    torch.manual_seed(0)
    assert SHARED not in _problems(_train(TwoConvs(typo=False), images=True))


class Siamese(nn.Module):
    """One encoder (and its norm) on two inputs of one kind: a shared norm on purpose."""
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(64, 32), nn.BatchNorm1d(32), nn.ReLU())
        self.head = nn.Linear(64, 10)

    def forward(self, a, b):
        return self.head(torch.cat([self.encoder(a), self.encoder(b)], dim=1))


def test_a_norm_shared_by_inputs_of_one_kind_stays_silent():
    mon = _train(Siamese(), pair=True)
    assert SHARED not in _problems(mon)
    rows = mon.run.observed.shared_norm_sites            # read with the findings
    assert rows and all(row[2] == 2 for row in rows)       # seen: two calls per forward


class TwiceInEvaluation(TwoConvs):
    """bn1 at both sites only in eval mode (a test-time path): training calls it once."""
    def forward(self, x):
        h = torch.relu(self.bn1(self.conv1(x)))
        second = self.bn2 if self.training else self.bn1
        return self.head(torch.relu(second(self.conv2(h) * 4 + 2)).flatten(1))


def test_calls_in_evaluation_are_not_read():
    model = TwiceInEvaluation(typo=True)
    torch.manual_seed(0)
    x, y = classification(images=True)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, STEPS):
            model.eval()
            with torch.no_grad():
                model(xb)
            model.train()
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert SHARED not in _problems(mon)
    assert mon.run.observed.shared_norm_sites == []        # read with the findings


def test_separation_reads_means_and_spreads():
    same = (torch.zeros(3), torch.ones(3))
    assert separation([same, same]) == (0.0, 1.0)
    apart = (torch.full((3,), 2.0), torch.ones(3))
    wide = (torch.zeros(3), torch.full((3,), 9.0))
    gap, ratio = separation([same, apart, wide])
    assert gap == pytest.approx(2.0, rel=1e-4) and ratio == pytest.approx(9.0, rel=1e-4)
    assert NORM_SITES_MEAN_GAP <= gap and NORM_SITES_SPREAD_RATIO <= ratio


def test_a_norm_inside_a_block_repeated_by_list_multiplication_is_left_to_its_cause():
    from benchmarks.real_bugs import residual_blocks_repeated_by_list_multiplication as repeated
    mon = repeated.run(steps=STEPS)
    problems = _problems(mon)
    assert "MODULE_REPEATED_IN_CONTAINER" in problems and SHARED not in problems
    assert mon.run.observed.shared_norm_sites            # its norm was seen at 4 sites


class DenseClampBlock(nn.Module):
    """A dense skip: ``x.clamp_(min=0)`` (a ReLU by hand, in place), then cat([x, f(x)])."""
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        h = x.clamp_(min=0)
        return torch.cat([self.fc(h), x], dim=1)


def test_a_clamp_in_place_then_a_concatenated_skip_is_named():
    model = nn.Sequential(nn.Linear(64, 16), DenseClampBlock(16), nn.Linear(32, 10))
    mon = _train(model)
    assert IN_PLACE in _problems(mon)
    assert "clamp_" in next(f for f in mon.findings() if f.code == IN_PLACE).message
