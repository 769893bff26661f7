"""Real-bug batch 39 (training-loop mistakes): losses computed and never back-propagated
(LOSSES_NOT_BACKPROPAGATED) and a gradient clip written after ``optimizer.step()``
(GRADIENTS_CLIPPED_AFTER_STEP).

Planted: the reports' cases (a loss assigned, not added, over a batch's images; a clip
after the step), and more of each family: a per-time-step loss assigned in a loop over an
RNN cell, or over the time steps of one forward's output, a backward() reached by one
micro-batch in four, a clip by value after the step. Silent: the fixed twins, and healthy
loops that look alike: a metric computed with a loss function beside the trained loss,
the best of several losses scored on one output, a detached forward pass for a target, a
validation forward in eval mode with gradients on, every micro-batch back-propagated, a
clip before the step, a zero_grad() that fills zeros before watch's step(), and a second
network's backward into the watched one's gradients after its step.
"""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import gradient_clipped_after_optimizer_step as late_clip  # noqa: E402
from benchmarks.real_bugs import loss_overwritten_per_image as overwritten  # noqa: E402
from benchmarks.real_bugs._common import batches, classification, mlp  # noqa: E402
from nndebug.rules import clipped_after_step, discarded_losses  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
DISCARDED = "LOSSES_NOT_BACKPROPAGATED"
LATE_CLIP = "GRADIENTS_CLIPPED_AFTER_STEP"
STEPS = 12


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _digits(steps=STEPS, batch_size=16):
    x, y = classification()
    return batches(x, y, steps, batch_size=batch_size)


def _train(step_of, steps=STEPS, optimizer_of=None, batch_size=16):
    """A digits MLP trained by ``step_of(model, optimizer, xb, yb) -> loss`` (the loop's
    body up to optimizer.step()); the closed monitor."""
    torch.manual_seed(0)
    model = mlp()
    optimizer = (optimizer_of or (lambda m: torch.optim.SGD(m.parameters(), lr=0.05)))(model)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in _digits(steps, batch_size):
            mon.step(step_of(model, optimizer, xb, yb))
    return mon


# --- LOSSES_NOT_BACKPROPAGATED ---------------------------------------------------------------

def test_the_report_of_a_loss_assigned_per_image_is_named_and_its_twin_is_silent():
    mon = overwritten.run(steps=STEPS)
    assert DISCARDED in _problems(mon)
    finding = next(f for f in mon.findings() if f.code == DISCARDED)
    assert finding.evidence["loss_calls"][0] == overwritten.BATCH_SIZE
    assert finding.evidence["losses_backpropagated"][0] == 1
    assert DISCARDED not in _problems(overwritten.run(fixed=True, steps=STEPS))


class CharCell(nn.Module):
    """One step of a character RNN: (input one-hot, hidden) -> (logits, hidden)."""

    def __init__(self, vocabulary=10, hidden=32):
        super().__init__()
        self.cell = nn.RNNCell(vocabulary, hidden)
        self.head = nn.Linear(hidden, vocabulary)

    def forward(self, x, h):
        h = self.cell(x, h)
        return self.head(h), h


@pytest.mark.parametrize("added", [False, True])
def test_a_per_time_step_loss_assigned_in_the_loop_is_named(added):
    """``loss = criterion(out, y[t])`` over the time steps trains the last one only (the
    same mistake over time instead of over images); ``loss +=`` is silent."""
    torch.manual_seed(0)
    model = CharCell()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    criterion = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer) as mon:
        for _ in range(STEPS):
            ids = torch.randint(0, 10, (8, 7))
            h = torch.zeros(8, 32)
            optimizer.zero_grad()
            loss = 0
            for t in range(6):
                out, h = model(F.one_hot(ids[:, t], 10).float(), h)
                step_loss = criterion(out, ids[:, t + 1])
                loss = loss + step_loss if added else step_loss
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert (DISCARDED in _problems(mon)) is not added


class Tagger(nn.Module):
    """Next-id scores at every position of a sequence, in one forward pass."""

    def __init__(self, vocabulary=10, hidden=32):
        super().__init__()
        self.embed = nn.Embedding(vocabulary, 16)
        self.rnn = nn.GRU(16, hidden, batch_first=True)
        self.head = nn.Linear(hidden, vocabulary)

    def forward(self, ids):
        return self.head(self.rnn(self.embed(ids))[0])


@pytest.mark.parametrize("added", [False, True])
def test_time_steps_of_one_output_scored_in_a_loop_are_named(added):
    """One forward over the whole sequence, then ``loss = criterion(out[:, t], y[:, t])`` in
    a loop over t: only the last step's slice trains."""
    torch.manual_seed(0)
    model = Tagger()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for _ in range(STEPS):
            ids = torch.randint(0, 10, (8, 7))
            optimizer.zero_grad()
            out = model(ids[:, :-1])
            loss = 0
            for t in range(6):
                step_loss = F.cross_entropy(out[:, t], ids[:, t + 1])
                loss = loss + step_loss / 6 if added else step_loss
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert (DISCARDED in _problems(mon)) is not added


@pytest.mark.parametrize("every_micro_batch", [False, True])
def test_a_backward_reached_by_one_micro_batch_in_four_is_named(every_micro_batch):
    """Gradient accumulation whose backward() sits inside the ``if`` of the optimizer step:
    three micro-batches in four are scored and thrown away."""
    torch.manual_seed(0)
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    with nd.watch(model, optimizer) as mon:
        for index, (xb, yb) in enumerate(_digits(4 * STEPS)):
            loss = F.cross_entropy(model(xb), yb) / 4
            if every_micro_batch:
                loss.backward()
            if (index + 1) % 4 == 0:
                if not every_micro_batch:
                    loss.backward()
                optimizer.step()
                optimizer.zero_grad()
                mon.step(loss)
    assert (DISCARDED in _problems(mon)) is not every_micro_batch


def test_a_metric_computed_with_a_loss_function_beside_the_loss_is_silent():
    """An L1 printed next to the cross-entropy reads the same output, which backward reaches."""
    def step(model, optimizer, xb, yb):
        optimizer.zero_grad()
        out = model(xb)
        loss = F.cross_entropy(out, yb)
        F.l1_loss(out.softmax(1), F.one_hot(yb, 10).float()).item()   # a metric
        loss.backward()
        optimizer.step()
        return loss
    assert DISCARDED not in _problems(_train(step))


def test_the_best_of_several_losses_on_one_output_is_silent():
    """A permutation-invariant loss keeping the smallest of its permutations' losses (Python's
    min): the others get no gradient, but they score the same forward pass."""
    def step(model, optimizer, xb, yb):
        optimizer.zero_grad()
        out = model(xb)
        losses = [F.cross_entropy(out.roll(shift, 1), yb) for shift in range(4)]
        loss = min(losses, key=lambda value: value.item())
        loss.backward()
        optimizer.step()
        return loss
    assert DISCARDED not in _problems(_train(step))


def test_a_detached_target_forward_and_an_eval_forward_with_gradients_on_are_silent():
    """A DQN-style target read from the model itself, detached, and a validation forward in
    eval mode without no_grad (its loss is computed and dropped, as evaluation does)."""
    x, y = classification()

    def step(model, optimizer, xb, yb):
        optimizer.zero_grad()
        target = model(xb.flip(1)).softmax(1).detach()          # a forward, no loss on it
        out = model(xb)
        loss = F.cross_entropy(out, yb) + 0.1 * F.mse_loss(out.softmax(1), target)
        loss.backward()
        optimizer.step()
        model.eval()
        F.cross_entropy(model(x[:64]), y[:64]).item()             # validation, graph built
        model.train()
        return loss
    assert DISCARDED not in _problems(_train(step))


def test_the_rule_asks_for_most_calls_dropped_on_most_steps():
    rule = discarded_losses.losses_not_backpropagated

    class Run:
        def __init__(self, rows):
            self.run = type("R", (), {"observed": type("O", (), {"discarded_losses": rows})})

    per_image = (16, 16, 1, 160, 160)     # forwards, calls, reached, output, read
    assert rule(Run([(step, *per_image) for step in range(3)])) is not None
    assert rule(Run([(s, 1, 6, 1, 60, 60) for s in range(3)])) is not None    # slices of one
    assert rule(Run([(s, 2, 2, 1, 20, 20) for s in range(3)])) is None        # half: no majority
    assert rule(Run([(s, 1, 4, 1, 10, 40) for s in range(3)])) is None        # one output 4x
    assert rule(Run([(s, 4, 4, 0, 40, 40) for s in range(3)])) is None        # no backward
    assert rule(Run([(0, *per_image), (1, 1, 1, 1, 10, 10), (2, 1, 1, 1, 10, 10)])) is None


# --- GRADIENTS_CLIPPED_AFTER_STEP ------------------------------------------------------------

def test_the_report_of_a_clip_after_the_step_is_named_and_its_twin_is_silent():
    mon = late_clip.run(steps=40)
    assert LATE_CLIP in _problems(mon)
    finding = next(f for f in mon.findings() if f.code == LATE_CLIP)
    assert finding.evidence["smallest_ratio"][0] < 1
    assert LATE_CLIP not in _problems(late_clip.run(fixed=True, steps=40))


def _clipped(where, clip):
    def step(model, optimizer, xb, yb):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(xb), yb) * 50         # gradients far above the clip
        loss.backward()
        if where == "before":
            clip(model.parameters())
        optimizer.step()
        if where == "after":
            clip(model.parameters())
        return loss
    return _train(step)


@pytest.mark.parametrize("where", ["before", "after"])
@pytest.mark.parametrize("clip", ["norm", "value"])
def test_a_clip_by_norm_or_by_value_after_the_step_is_named(where, clip):
    clips = {"norm": lambda p: torch.nn.utils.clip_grad_norm_(p, 0.5),
             "value": lambda p: torch.nn.utils.clip_grad_value_(p, 0.01)}
    assert (LATE_CLIP in _problems(_clipped(where, clips[clip]))) is (where == "after")


def test_zeros_filled_before_watchs_step_are_silent():
    """zero_grad(set_to_none=False) at the end of the loop, before mon.step(): the gradients
    go to 0 after the step, which is clearing, not clipping."""
    def step(model, optimizer, xb, yb):
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=False)
        return loss
    assert LATE_CLIP not in _problems(_train(step))


def test_another_networks_backward_into_the_watched_gradients_is_silent():
    """A GAN-like turn: after the watched network's step, a second loss back-propagates
    through it into the same .grad (a different gradient is added, not a scale)."""
    def step(model, optimizer, xb, yb):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()
        (-model(xb.flip(0)).logsumexp(1).mean()).backward()    # the other turn's loss
        return loss
    assert LATE_CLIP not in _problems(_train(step))


def test_the_rule_asks_for_one_factor_or_two_uneven_steps():
    rule = clipped_after_step.gradients_clipped_after_step

    class Run:
        def __init__(self, rows):
            self.run = type("R", (), {"observed": type("O", (), {"gradients_after_step": rows})})

    assert rule(Run([(0, 6, 1.0, 1.0), (32, 6, 0.5, 0.5000001)])) is not None
    assert rule(Run([(0, 6, 0.4, 0.9)])) is None                        # uneven, one step
    assert rule(Run([(0, 6, 0.4, 0.9), (4, 6, 0.3, 0.95)])) is not None  # uneven, two steps
    assert rule(Run([(0, 6, 0.0, 0.0), (4, 6, 0.0, 0.0)])) is None        # zeroed, not clipped
    assert rule(Run([(0, 6, 0.5, 1.2), (4, 6, 0.5, 1.3)])) is None        # some grew
    assert rule(Run([(0, 1, 0.5, 0.5)])) is None                          # one tensor, one step
