"""Sequence-model rules (nndebug/rules/sequence.py): each finds its planted zoo case, stays
quiet on the healthy twin, and its measurement is checked on hand-made data."""
import numpy as np
import pytest

from nndebug import zoo
from nndebug.monitor.target_ids import summarize
from nndebug.observed import LossCall
from nndebug.rules.sequence import unmasked_padding


def problems(monitor):
    return [f.code for f in monitor.findings() if f.severity in ("warning", "error")]


# --- the target summary -------------------------------------------------------------------
def padded(rows=16, length=16, pad=0, seed=0):
    rng = np.random.default_rng(seed)
    ids = rng.integers(1, 50, size=(rows, length))
    lengths = rng.integers(4, length + 1, size=rows)
    ids[np.arange(length)[None, :] >= lengths[:, None]] = pad
    return ids


def test_summary_of_padded_targets_names_the_pad_id_in_runs():
    ids = padded(pad=0)
    s = summarize(ids.reshape(-1), ids.shape)
    assert s["target_mode"] == 0
    assert s["target_mode_share"] == pytest.approx((ids == 0).mean())
    assert s["target_mode_in_runs"] > 0.9 and s["target_others_in_runs"] < 0.1


def test_summary_reads_sequence_first_targets_down_the_columns():
    ids = padded(pad=7).T.copy()           # (T, B): padding runs down each column
    s = summarize(ids.reshape(-1), ids.shape)
    assert s["target_mode"] == 7 and s["target_mode_in_runs"] > 0.9


def test_summary_of_independent_labels_matches_chance():
    rng = np.random.default_rng(1)
    labels = rng.choice(10, size=4000, p=[0.4] + [0.6 / 9] * 9)
    s = summarize(labels)
    # a label with share p sits next to itself with probability 1 - (1 - p)^2
    assert s["target_mode_in_runs"] == pytest.approx(1 - 0.6 ** 2, abs=0.03)



@pytest.mark.parametrize("pad", [0, 7, -100])
def test_summary_of_ids_sent_as_floats_is_the_summary_of_the_integers(pad):
    """The ids reach the host in the step's one float transfer: whole-number floats are
    counted as the integers they are (one bincount pass, not a sort), with the same summary."""
    ids = padded(pad=pad)
    as_integers = summarize(ids.reshape(-1), ids.shape)
    as_floats = summarize(ids.reshape(-1).astype(np.float32), ids.shape)
    assert as_floats == as_integers and as_integers["target_mode"] == pad
    fractional = summarize(np.array([0.5, 1.0, 1.0, 2.0, 1.0]))
    assert fractional["target_mode"] == 1.0 and "target_counts" in fractional

def call(step, ignore_index=-100, reduction="mean", ids=None, classes=50):
    ids = padded(seed=step) if ids is None else ids
    return LossCall(step, "CrossEntropyLoss", (ids.size, classes), (ids.size,),
                    target_integer=True, ignore_index=ignore_index, reduction=reduction,
                    **summarize(ids.reshape(-1)))


def test_padding_the_loss_does_not_ignore_is_named():
    evidence = unmasked_padding([call(s) for s in range(4)])
    assert evidence["pad_id"] == 0 and evidence["ignore_index"] == -100


@pytest.mark.parametrize("change", [dict(ignore_index=0), dict(reduction="none"),
                                    dict(ignore_index=None), dict(classes=2)])
def test_no_padding_finding_when_the_loss_ignores_it_or_cannot_be_judged(change):
    assert unmasked_padding([call(s, **change) for s in range(4)]) is None


def test_no_padding_finding_on_sorted_or_independent_labels():
    sorted_labels = np.repeat(np.arange(4), 16)            # a batch sorted by label
    assert unmasked_padding([call(s, ids=sorted_labels) for s in range(4)]) is None
    rng = np.random.default_rng(0)
    skewed = [rng.choice(10, size=256, p=[0.4] + [0.6 / 9] * 9) for _ in range(4)]
    assert unmasked_padding([call(s, ids=ids) for s, ids in enumerate(skewed)]) is None
    assert unmasked_padding([call(0)]) is None               # one call is not enough


# --- the zoo pairs ------------------------------------------------------------------------
PAIRS = [("seq-padding-not-masked", "seq-healthy-padded", "PADDING_NOT_MASKED"),
         ("seq-attention-unscaled", "seq-healthy-attention", "ATTENTION_SATURATED")]


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
@pytest.mark.parametrize("broken, healthy, code", PAIRS)
def test_planted_case_is_named_and_its_twin_is_quiet(framework, broken, healthy, code):
    if framework == "torch":
        pytest.importorskip("torch")
    assert code in problems(zoo.get(f"{framework}/{broken}").run())
    assert problems(zoo.get(f"{framework}/{healthy}").run()) == []


# --- attention peaks ----------------------------------------------------------------------
def namespaces():
    from nndebug.adapters.minigrad_adapter import NumpyNamespace
    found = [(NumpyNamespace(), np.asarray)]
    try:
        import torch
        from nndebug.adapters.torch_adapter import TorchNamespace
        found.append((TorchNamespace(), lambda a: torch.from_numpy(np.asarray(a))))
    except ImportError:
        pass
    return found


@pytest.mark.parametrize("space", namespaces(), ids=lambda s: type(s[0]).__name__)
def test_attention_peaks_match_a_numpy_reference_with_masked_keys(space):
    from nndebug.monitor.statistics import ATTENTION_ONE_HOT, attention_peaks
    xp, make = space
    rng = np.random.default_rng(0)
    scores = rng.normal(scale=3.0, size=(2, 3, 5, 5))
    scores[..., np.triu(np.ones((5, 5), bool), 1)] = -np.inf       # causal: row 0 sees one key
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    got = {name: float(f()) for name, f in attention_peaks(xp, make(weights))}
    rows = weights.reshape(-1, 5)
    n = (rows > 0).sum(1)
    top, n = rows.max(1)[n >= 2], n[n >= 2]                        # rows that see 2+ keys
    assert got["attention_peak"] == pytest.approx(((top - 1 / n) / (1 - 1 / n)).mean())
    assert got["attention_one_hot"] == pytest.approx((top > ATTENTION_ONE_HOT).mean())
    uniform = dict(attention_peaks(xp, make(np.full((1, 4, 4), 0.25))))
    assert float(uniform["attention_peak"]()) == pytest.approx(0.0, abs=1e-7)


def early_records(peaks):
    from nndebug.records import StepRecord
    return [StepRecord(step=s, activations={"attn.softmax": {"attention_peak": p,
                                                             "attention_one_hot": 0.3}})
            for s, p in peaks]


def test_attention_peaked_in_the_first_steps_is_named_and_later_sharpening_is_not():
    from nndebug.rules.sequence import PEAK_AT_START, peaked_attention
    assert "attn.softmax" in peaked_attention(early_records([(0, 0.6), (1, 0.62), (2, 0.6)]))
    # healthy attention sharpens as it learns: only the first steps are judged
    assert peaked_attention(early_records([(0, 0.08), (1, 0.09), (2, 0.1), (4, 0.9),
                                           (32, 0.95)])) == {}
    assert peaked_attention(early_records([(0, PEAK_AT_START - 0.01)])) == {}
    assert peaked_attention(early_records([(0, float("nan"))])) == {}


# --- a graph that grows -------------------------------------------------------------------
def test_graph_nodes_count_a_fixed_graph_alike_and_a_chained_one_growing():
    import minigrad as mg
    from nndebug.adapters.graph_size import graph_nodes
    w = mg.tensor(np.ones(3), requires_grad=True)
    state, chained, fixed = mg.tensor(np.zeros(3)), [], []
    for _ in range(4):
        state = (state + w) * 0.5                  # carried: each step extends the graph
        chained.append(graph_nodes("minigrad", state.sum()))
        fixed.append(graph_nodes("minigrad", ((mg.tensor(np.zeros(3)) + w) * 0.5).sum()))
    assert len(set(fixed)) == 1 and chained[0] == fixed[0]
    assert all(b - a == 2 for a, b in zip(chained, chained[1:]))   # one add, one mul per step
    assert graph_nodes("minigrad", mg.tensor(np.ones(2))) is None      # no graph
    torch = pytest.importorskip("torch")
    v = torch.ones(3, requires_grad=True)
    h, sizes = torch.zeros(3), []
    for _ in range(3):
        h = (h + v) * 0.5
        sizes.append(graph_nodes("torch", h.sum()))
    assert sizes[1] - sizes[0] == sizes[2] - sizes[1] == 2


def test_growing_graph_needs_growth_at_every_step():
    from nndebug.rules.sequence import growing_graph
    assert growing_graph([(s, 75 + 73 * s) for s in range(12)])["growth"] > 10
    assert growing_graph([(s, 75) for s in range(12)]) is None
    assert growing_graph([(0, 75), (1, 200), (2, 150), (3, 400)]) is None   # lengths vary
    assert growing_graph([(0, 75), (1, 80), (2, 85), (3, 90)]) is None      # barely grows
    assert growing_graph([(0, 75), (1, 148), (2, 221)]) is None             # too few steps


def test_lstm_state_not_detached_is_named_and_its_twin_is_quiet():
    broken = zoo.get("minigrad/seq-lstm-state-not-detached").run()
    assert problems(broken)[0] == "HIDDEN_STATE_NOT_DETACHED"
    assert problems(zoo.get("minigrad/seq-healthy-lstm-stream").run()) == []


def test_dependency_probes_pick_a_recurrent_state_by_its_batch_dimension():
    from nndebug.probes.dependencies.batch import Batch
    ids = np.arange(12).reshape(4, 3)
    state = np.arange(2 * 4 * 5).reshape(2, 4, 5)      # (num_layers, batch, hidden)
    picked = Batch([ids, state]).rows([3, 1])
    assert np.array_equal(picked[0], ids[[3, 1]])
    assert np.array_equal(picked[1], state[:, [3, 1]])


def test_a_functional_softmax_is_measured_on_torch_and_the_mode_stack_is_left_as_found():
    torch = pytest.importorskip("torch")
    from torch.overrides import TorchFunctionMode
    depth = torch._C._len_torch_function_stack()
    monitor = zoo.get("torch/seq-attention-unscaled").run(steps=4)   # F.softmax in attention
    assert torch._C._len_torch_function_stack() == depth
    assert monitor.run.records[0].activations["attn.softmax"]["attention_peak"] > 0.4

    import nndebug as nd
    model = torch.nn.Linear(4, 4)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    mon = nd.watch(model, optimizer, overhead=None)
    x = torch.randn(2, 3, 4)
    # two observers push a mode for part of a recorded step: attention's (from the forward's
    # first module call) and the NaN-origins one (from the forward's end); both end at the
    # optimizer's step, and neither pops from under a mode pushed after it
    both = ["SoftmaxWatch", "OriginsWatch"]
    assert modes_above(depth) == []             # armed, but no forward yet
    loss = torch.softmax(model(x), dim=-1).sum()
    assert modes_above(depth) == both
    loss.backward()

    class PassThrough(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    with PassThrough():                         # the user's own mode, pushed on top of ours
        optimizer.step()                        # ends ours: they cannot pop from under theirs
        mon.step(loss)
        assert modes_above(depth) == both + ["PassThrough"]   # ours stay, switched off
    assert modes_above(depth) == both
    mon.step(loss)                              # on top again: popped
    assert modes_above(depth) == []
    model(x).sum().backward()
    assert modes_above(depth) == both
    optimizer.step()                            # the optimizer's step ends the modes
    assert modes_above(depth) == []
    mon.close()
    assert torch._C._len_torch_function_stack() == depth
    assert "model.softmax" in monitor_activations(mon)


def modes_above(depth):
    """The names of the torch function modes pushed above the first ``depth``."""
    from torch.overrides import _get_current_function_mode_stack
    return [type(mode).__name__ for mode in _get_current_function_mode_stack()[depth:]]


def monitor_activations(mon):
    return {name for record in mon.run.records for name in record.activations}


def test_loss_options_of_a_module_and_of_a_function_call():
    from nndebug.monitor.target_ids import loss_options
    torch = pytest.importorskip("torch")
    assert loss_options(torch.nn.CrossEntropyLoss(ignore_index=0)) == \
        {"ignore_index": 0, "reduction": "mean", "class_weights": None}
    assert loss_options(torch.nn.MSELoss()) == \
        {"ignore_index": None, "reduction": "mean", "class_weights": None}
    assert loss_options(torch.nn.CrossEntropyLoss(weight=torch.tensor([1.0, 3.0])))[
        "class_weights"] == (1.0, 3.0)
    # a plain function: torch's defaults unless the call says otherwise
    assert loss_options(torch.nn.functional.cross_entropy, {}) == \
        {"ignore_index": -100, "reduction": "mean", "class_weights": None}
    assert loss_options(torch.nn.functional.cross_entropy, {"reduction": "none"})["reduction"] \
        == "none"


@pytest.mark.parametrize("ignore_index, expected", [(-100, True), (0, False)])
def test_padding_is_seen_through_f_cross_entropy_without_loss_fn(ignore_index, expected):
    torch = pytest.importorskip("torch")
    import nndebug as nd
    from nndebug.zoo._padded_sequences import VOCAB, padded_batches
    from nndebug.zoo.torch_cases._seq_models import TinyGPT
    torch.manual_seed(0)
    model = TinyGPT(vocab=VOCAB, dim=16, length=16, heads=2)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, overhead=None) as mon:      # no loss_fn: F.cross_entropy
        for ids, targets in padded_batches(8):
            ids, targets = torch.from_numpy(ids), torch.from_numpy(targets)
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(ids).reshape(-1, VOCAB),
                                                     targets.reshape(-1),
                                                     ignore_index=ignore_index)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert ("PADDING_NOT_MASKED" in problems(mon)) == expected
    call = mon.run.observed.loss_calls[0]
    assert (call.loss, call.ignore_index) == ("cross_entropy", ignore_index)


def test_a_loss_module_is_named_as_the_module_not_as_the_function_it_calls():
    monitor = zoo.get("torch/seq-padding-not-masked").run(steps=4)
    assert {c.loss for c in monitor.run.observed.loss_calls} == {"CrossEntropyLoss"}
