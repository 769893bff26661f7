"""The sequence-model bugs of the catalogue: enough of them, on sequence primitives, and the
claims their lessons make hold (the generic checks - gradients change, finite differences
side with the correct backward, plant() restores, locate names the primitive, a hunt model
shows each - run over the whole catalogue in test_bugs, test_locate and test_cli_bugs)."""
import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
from minigrad.bugs import catalogue, hunt, plant
from minigrad.bugs import sequence_bugs

SEQUENCE_BUGS = [bug for bug in catalogue() if bug.backward.__module__ == sequence_bugs.__name__]


def grads(leaves, forward, cotangent):
    for t in leaves:
        t.grad = None
    forward().backward(cotangent)
    return [t.grad.copy() for t in leaves]


def test_at_least_ten_sequence_bugs_on_sequence_primitives():
    assert len(SEQUENCE_BUGS) >= 10
    ops = {bug.op for bug in SEQUENCE_BUGS}
    assert {"scaled_dot_product_attention", "lstm_cell", "gru_cell", "where",
            "logsumexp"} <= ops
    assert {"attention", "recurrent", "masking"} <= {bug.family for bug in SEQUENCE_BUGS}


def test_every_sequence_bug_has_a_sequence_hunt_model():
    keys = {m.key for m in hunt.MODELS}
    assert {"row-lstm", "row-gru", "row-transformer"} <= keys


def test_elu_bug_is_invisible_at_the_default_alpha():
    x = mg.tensor(np.linspace(-2, 2, 9), requires_grad=True, dtype=np.float64)
    cot = np.random.default_rng(0).standard_normal(9)
    for alpha, same in ((1.0, True), (0.4, False)):
        correct = grads([x], lambda: nn.functional.elu(x, alpha), cot)[0]
        with plant("elu_negative_side_forgets_alpha"):
            faulty = grads([x], lambda: nn.functional.elu(x, alpha), cot)[0]
        assert np.allclose(correct, faulty) == same


def test_where_leak_is_hidden_by_a_minus_inf_fill_before_softmax():
    """The lesson's claim: attention masks filled with -inf hide the leak, finite fills don't."""
    rng = np.random.default_rng(1)
    scores = mg.tensor(rng.standard_normal((4, 4)), requires_grad=True, dtype=np.float64)
    blocked = np.triu(np.ones((4, 4), bool), k=1)
    cot = rng.standard_normal((4, 4))
    for fill, hidden in ((-np.inf, True), (0.0, False)):
        forward = lambda: scores.masked_fill(blocked, fill).softmax(dim=-1)  # noqa: E731
        correct = grads([scores], forward, cot)[0]
        with plant("where_gradient_leaks_to_both_branches"):
            faulty = grads([scores], forward, cot)[0]
        assert np.allclose(correct, faulty) == hidden


def test_lstm_carry_bug_is_invisible_on_one_step_and_visible_on_two():
    mg.manual_seed(0)
    lstm = nn.LSTM(3, 4, dtype=np.float64)
    x = np.random.default_rng(2).standard_normal((2, 1, 3))
    for steps, same in ((1, True), (2, False)):
        inputs = mg.tensor(x[:steps], dtype=np.float64)
        cot = np.ones((steps, 1, 4))
        forward = lambda: lstm(inputs)[0]  # noqa: E731
        params = list(lstm.parameters())
        correct = grads(params, forward, cot)
        with plant("lstm_carry_gradient_dropped"):
            faulty = grads(params, forward, cot)
        assert all(np.allclose(a, b) for a, b in zip(correct, faulty)) == same


@pytest.mark.parametrize("name", ["attention_scale_forgotten_in_backward",
                                  "attention_backward_forgets_the_mask"])
def test_attention_bugs_change_a_causal_transformer_layer(name):
    mg.manual_seed(3)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, dtype=np.float64)
    x = mg.tensor(np.random.default_rng(4).standard_normal((2, 5, 8)), dtype=np.float64)
    cot = np.random.default_rng(5).standard_normal((2, 5, 8))
    params = list(layer.parameters())
    forward = lambda: layer(x, is_causal=True)  # noqa: E731
    correct = grads(params, forward, cot)
    with plant(name):
        faulty = grads(params, forward, cot)
    assert not all(np.allclose(a, b) for a, b in zip(correct, faulty))
