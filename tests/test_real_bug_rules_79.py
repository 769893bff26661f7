"""Real-bug batch 79 (transformer blocks written by users): ATTENTION_UNIFORM
(``rules/attention_scale.py``), an attention's logits divided by sqrt(head_dim) twice, read
from the constant factors between q @ k^T (or the kernel) and the projections on the first
recorded steps (``monitor/attention_scales.py``, inside attention_capture's mode).

Named on its planted case (AI-Hypercomputer/maxtext#1349: queries divided by sqrt(d) before
``F.scaled_dot_product_attention``) and on variants (scores divided twice in a hand-written
attention, the key pre-scaled with four heads, a scale written as ``* d ** -0.5`` twice);
silent on the fixed twin and on what looks alike and is fine: the kernel alone, a
hand-written 1/sqrt(d), d**-0.25 on q and on k, a deliberate 1/d passed once (muP), q
divided by sqrt(d) with ``scale=1.0`` to the kernel, a learned temperature, tiny heads,
``nn.MultiheadAttention``. The batch's other four cases (already named as they came) stay
named and their twins silent.
"""
import math

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import attention_scaled_twice as twice_case  # noqa: E402
from benchmarks.real_bugs._common import characters, next_character_batches  # noqa: E402
from benchmarks.real_bugs._common import next_id_loss  # noqa: E402
from nndebug.monitor.attention_scales import SCALE_OBSERVED_STEPS  # noqa: E402  (attention_capture)

pytestmark = pytest.mark.usefixtures("one_torch_thread")
UNIFORM = "ATTENTION_UNIFORM"
LENGTH = 16


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


class Block(nn.Module):
    """One causal attention block; ``attend(q, k, v)`` is the attention under test."""

    def __init__(self, vocab, attend, dim=64, heads=1):
        super().__init__()
        self.attend, self.heads = attend, heads
        self.embed, self.position = nn.Embedding(vocab, dim), nn.Embedding(LENGTH, dim)
        self.qkv, self.out = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.head = nn.Linear(dim, vocab)
        self.temperature = nn.Parameter(torch.tensor(1.0))

    def forward(self, ids):
        x = self.embed(ids) + self.position(torch.arange(ids.shape[1]))
        B, L, E = x.shape
        q, k, v = (t.view(B, L, self.heads, -1).transpose(1, 2)
                   for t in self.qkv(x).chunk(3, dim=-1))
        y = self.attend(self, q, k, v)
        return self.head(x + self.out(y.transpose(1, 2).reshape(B, L, E)))


def _causal_softmax(scores):
    L = scores.shape[-1]
    future = torch.triu(torch.ones(L, L, dtype=torch.bool), 1)
    return scores.masked_fill(future, float("-inf")).softmax(-1)


def _run(attend, steps=6, heads=1, dim=64):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = Block(vocab, attend, dim=dim, heads=heads)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in next_character_batches(ids, steps, LENGTH):
            optimizer.zero_grad()
            loss = next_id_loss(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


# --- the planted case ----------------------------------------------------------------------

def test_planted_queries_scaled_before_the_kernel_are_named_and_the_twin_is_silent():
    mon = twice_case.run(steps=30)
    assert UNIFORM in _codes(mon)
    rows = mon.run.observed.attention_scales
    assert rows and all(row[2] == 64 and row[3] == pytest.approx([0.125, 0.125])
                        for row in rows)
    assert len({row[1] for row in rows}) <= SCALE_OBSERVED_STEPS    # first steps only
    assert UNIFORM not in _codes(twice_case.run(fixed=True, steps=30))


# --- variants: named -----------------------------------------------------------------------

def test_scores_divided_twice_in_a_handwritten_attention_are_named():
    def attend(self, q, k, v):
        d = q.shape[-1]
        scores = q @ k.transpose(-2, -1) / math.sqrt(d)
        return _causal_softmax(scores / math.sqrt(d)) @ v
    assert UNIFORM in _codes(_run(attend))


def test_key_prescaled_with_four_heads_is_named():
    def attend(self, q, k, v):
        k = k * k.shape[-1] ** -0.5
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert UNIFORM in _codes(_run(attend, heads=4))


def test_query_and_scores_each_multiplied_by_the_inverse_root_are_named():
    def attend(self, q, k, v):
        scale = q.shape[-1] ** -0.5
        return _causal_softmax((q * scale) @ k.transpose(-2, -1) * scale) @ v
    assert UNIFORM in _codes(_run(attend))


# --- look-alikes: silent -------------------------------------------------------------------

def _silent(attend, **kwargs):
    mon = _run(attend, **kwargs)
    assert UNIFORM not in _codes(mon)
    return mon


def test_the_kernel_alone_is_silent():
    mon = _silent(lambda self, q, k, v: F.scaled_dot_product_attention(q, k, v,
                                                                       is_causal=True))
    assert mon.run.observed.attention_scales        # seen, and judged healthy


def test_handwritten_single_scale_is_silent():
    _silent(lambda self, q, k, v: _causal_softmax(
        q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])) @ v)


def test_quarter_root_on_query_and_key_is_silent():
    def attend(self, q, k, v):
        s = q.shape[-1] ** -0.25                 # guided-diffusion's split of 1/sqrt(d)
        return _causal_softmax((q * s) @ (k * s).transpose(-2, -1)) @ v
    _silent(attend)


def test_deliberate_one_over_d_passed_once_is_silent():
    _silent(lambda self, q, k, v: F.scaled_dot_product_attention(
        q, k, v, is_causal=True, scale=1.0 / q.shape[-1]))


def test_query_scaled_by_hand_with_kernel_scale_one_is_silent():
    def attend(self, q, k, v):
        q = q / math.sqrt(q.shape[-1])
        return F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=1.0)
    _silent(attend)


def test_learned_temperature_ends_the_walk_and_is_silent():
    def attend(self, q, k, v):
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        return _causal_softmax(scores / self.temperature / math.sqrt(q.shape[-1])) @ v
    mon = _silent(attend)
    assert all(len(row[3]) == 1 for row in mon.run.observed.attention_scales)


def test_tiny_heads_are_silent():
    def attend(self, q, k, v):
        q = q / math.sqrt(q.shape[-1])
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)
    _silent(attend, heads=16)                    # heads of 4


def test_multihead_attention_module_is_silent():
    torch.manual_seed(0)
    ids, vocab = characters()

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(vocab, 32)
            self.attention = nn.MultiheadAttention(32, 2, batch_first=True)
            self.head = nn.Linear(32, vocab)

        def forward(self, x):
            h = self.embed(x)
            mask = torch.triu(torch.ones(x.shape[1], x.shape[1], dtype=torch.bool), 1)
            return self.head(h + self.attention(h, h, h, attn_mask=mask,
                                                need_weights=False)[0])
    model = Model()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in next_character_batches(ids, 6, LENGTH):
            optimizer.zero_grad()
            loss = next_id_loss(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert UNIFORM not in _codes(mon)


# --- the batch's other cases: named as they came, twins silent ------------------------------

@pytest.mark.parametrize("name,code,steps", [
    ("attention_scores_never_scaled", "ATTENTION_SATURATED", 60),
])
def test_other_cases_of_the_batch(name, code, steps):
    import importlib
    case = importlib.import_module(f"benchmarks.real_bugs.{name}")
    assert code in _codes(case.run(steps=steps))
    fixed = _codes(case.run(fixed=True, steps=steps))
    assert code not in fixed and UNIFORM not in fixed


def test_rows_saved_and_loaded_are_judged_alike():
    import json

    from nndebug import runfile
    mon = twice_case.run(steps=8)
    text = json.dumps(runfile._encode_observed(mon.run.observed), allow_nan=False)
    back = runfile.decode_observed(json.loads(text))
    assert back.attention_scales == mon.run.observed.attention_scales
    assert back.attention_scales and isinstance(back.attention_scales[0], tuple)
