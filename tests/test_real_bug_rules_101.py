"""Real-bug batch 101 (language models and next-token training that see the future): an
additive causal mask (0 / -inf) handed to an attention function that reads the binary
layout and applies ``scores + (1 - mask) * -1e9`` - every visible score swamped by -1e9,
the weights exactly uniform over the keys each query may see (ATTENTION_UNIFORM, from
``monitor/uniform_attention.py`` read by ``rules/attention_swamped.py``). Variants: one
block with 2 or 4 heads, a non-causal attention
whose all-visible padding mask is in the wrong layout. Fixed twin silent, and the healthy
look-alikes: padded query rows left uniform by a -1e9 fill (a minority), a query
projection initialised to zero (uniform at step 0 only). The rule on hand-made rows, the
rows saved and read back, and the batch's other two detected cases."""
import json

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import additive_causal_mask_into_binary_mask_api as swamped  # noqa: E402,E501
from benchmarks.real_bugs._common import characters, next_character_batches  # noqa: E402
from benchmarks.real_bugs._common import next_id_loss  # noqa: E402
from nndebug.monitor.uniform_attention import uniform_rows  # noqa: E402
from nndebug.observed import Observed  # noqa: E402
from nndebug.rules.attention_swamped import MIN_ATTENTION_ROWS, UNIFORM_SHARE  # noqa: E402
from nndebug.rules.attention_swamped import attention_weights_swamped  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
UNIFORM = "ATTENTION_UNIFORM"
LENGTH = 16


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


class Block(nn.Module):
    """One attention block; ``weights(scores)`` turns q @ k^T / sqrt(d) into weights."""

    def __init__(self, vocab, weights, dim=32, heads=2, zero_query=False):
        super().__init__()
        self.weights, self.heads = weights, heads
        self.embed, self.position = nn.Embedding(vocab, dim), nn.Embedding(LENGTH, dim)
        self.qkv, self.out = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.head = nn.Linear(dim, vocab)
        if zero_query:
            with torch.no_grad():
                self.qkv.weight[:dim].zero_()
                self.qkv.bias[:dim].zero_()

    def forward(self, ids):
        x = self.embed(ids) + self.position(torch.arange(ids.shape[1]))
        B, L, E = x.shape
        q, k, v = (t.view(B, L, self.heads, -1).transpose(1, 2)
                   for t in self.qkv(x).chunk(3, dim=-1))
        y = self.weights(q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5) @ v
        return self.head(x + self.out(y.transpose(1, 2).reshape(B, L, E)))


def _run(weights, steps=6, heads=2, zero_query=False):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = Block(vocab, weights, heads=heads, zero_query=zero_query)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in next_character_batches(ids, steps, LENGTH):
            optimizer.zero_grad()
            loss = next_id_loss(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def _additive(L):
    return torch.triu(torch.full((L, L), float("-inf")), diagonal=1)


def _binary(L):
    return torch.tril(torch.ones(L, L))


# --- the planted case and its twin ---------------------------------------------------------

def test_planted_case_is_named_and_the_twin_is_silent():
    mon = swamped.run(steps=30)
    found = [f for f in mon.findings() if f.code == UNIFORM]
    assert found and found[0].severity == "warning"
    assert found[0].evidence["uniform_rows"] == found[0].evidence["rows"]
    assert UNIFORM not in _codes(swamped.run(fixed=True, steps=30))


# --- variants ------------------------------------------------------------------------------

def test_additive_mask_into_the_binary_function_in_a_one_block_model_is_named():
    mon = _run(lambda s: swamped.apply_binary_mask(s, _additive(s.shape[-1])).softmax(-1))
    assert UNIFORM in _codes(mon)


def test_additive_mask_into_the_binary_function_with_four_heads_is_named():
    mon = _run(lambda s: swamped.apply_binary_mask(s, _additive(s.shape[-1])).softmax(-1),
               heads=4)
    assert UNIFORM in _codes(mon)


def test_non_causal_attention_with_an_all_visible_mask_in_the_wrong_layout_is_named():
    def weights(scores):
        all_visible = torch.zeros(scores.shape[-1])             # additive: 0 = visible
        return (scores + (1 - all_visible) * -1e9).softmax(-1)
    assert UNIFORM in _codes(_run(weights))


# --- healthy look-alikes -------------------------------------------------------------------

def test_binary_mask_into_the_binary_function_is_silent():
    mon = _run(lambda s: swamped.apply_binary_mask(s, _binary(s.shape[-1])).softmax(-1))
    assert UNIFORM not in _codes(mon)


def test_padded_query_rows_filled_with_minus_1e9_are_a_minority_and_silent():
    def weights(scores):
        L = scores.shape[-1]
        hidden = torch.triu(torch.ones(L, L, dtype=torch.bool), 1).clone()
        hidden[-3:, :] = True              # the last 3 queries are padding: every key hidden
        return scores.masked_fill(hidden, -1e9).softmax(-1)
    mon = _run(weights)
    rows = mon.run.observed.uniform_attention
    assert rows and all(0 < uniform < checked for _, _, checked, uniform in rows)
    assert UNIFORM not in _codes(mon)


def test_query_projection_initialised_to_zero_is_silent():
    def weights(scores):
        L = scores.shape[-1]
        return scores.masked_fill(torch.triu(torch.ones(L, L, dtype=torch.bool), 1),
                                  float("-inf")).softmax(-1)
    mon = _run(weights, zero_query=True)
    rows = mon.run.observed.uniform_attention
    assert rows[0][3] == rows[0][2]           # step 0: exactly uniform, by the zero init
    assert UNIFORM not in _codes(mon)


# --- the measurement and the rule on hand-made rows ----------------------------------------

def test_uniform_rows_counts_rows_that_see_two_keys_or_more():
    w = torch.tensor([[1.0, 0.0, 0.0],          # one key: not counted
                      [0.5, 0.5, 0.0],          # uniform over two
                      [0.2, 0.3, 0.5],          # not uniform
                      [1 / 3, 1 / 3, 1 / 3]])   # uniform over three
    assert uniform_rows(w) == (3, 2)


class _Ctx:
    def __init__(self, rows):
        self.run = type("Run", (), {"observed": Observed()})()
        self.run.observed.uniform_attention = rows


def test_rule_on_hand_made_rows():
    site = "blocks.0.softmax"
    swamped_rows = [(site, 0, 64, 64), (site, 1, 64, 64)]
    assert attention_weights_swamped(_Ctx(swamped_rows)).code == UNIFORM
    assert attention_weights_swamped(_Ctx(swamped_rows[:1])) is None          # one step only
    few = int(UNIFORM_SHARE * 64) - 1
    assert attention_weights_swamped(_Ctx([(site, 0, 64, 64), (site, 1, 64, few)])) is None
    small = MIN_ATTENTION_ROWS - 1
    assert attention_weights_swamped(_Ctx([(site, 0, small, small),
                                           (site, 1, small, small)])) is None


def test_rows_saved_and_loaded_are_judged_alike():
    from nndebug import runfile
    mon = swamped.run(steps=8)
    text = json.dumps(runfile._encode_observed(mon.run.observed), allow_nan=False)
    back = runfile.decode_observed(json.loads(text))
    assert back.uniform_attention == mon.run.observed.uniform_attention
    assert back.uniform_attention and isinstance(back.uniform_attention[0], tuple)


# --- the batch's other detected cases ------------------------------------------------------

@pytest.mark.parametrize("name, code, steps", [
    ("continuation_decoder_without_causal_mask", "FUTURE_LEAK", 40),
    ("forecaster_lag_written_to_wrong_column", "TARGETS_IN_INPUTS", 60),
])
def test_other_cases_of_the_batch(name, code, steps):
    import importlib
    case = importlib.import_module(f"benchmarks.real_bugs.{name}")
    assert code in _codes(case.run(steps=steps))
    assert code not in _codes(case.run(fixed=True, steps=steps))
