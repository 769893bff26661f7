"""check_dependencies: each probe finds its planted problem on both frameworks and at several
sizes, stays silent on healthy twins, and leaves the model exactly as it was."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import minigrad as mg
import minigrad.nn as mnn
import nndebug as nd
from nndebug.adapters import adapt
from nndebug.probes.dependencies.alignment import measure_offset
from nndebug.zoo.minigrad_cases import _seq_models as mseq

torch = pytest.importorskip("torch")
from nndebug.zoo.torch_cases import _seq_models as tseq  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")

FRAMEWORKS = {"torch": tseq, "minigrad": mseq}


def gpt(framework, **switches):
    (torch.manual_seed if framework == "torch" else mg.manual_seed)(0)
    return FRAMEWORKS[framework].TinyGPT(**switches)


def batch(framework, length=64, size=4, pad_tail=0):
    ids, targets, pad = FRAMEWORKS[framework].lm_batch(batch=size, length=length, pad_tail=pad_tail)
    return ids, targets, pad


def codes(result):
    return [f.code for f in result.findings if f.severity in ("warning", "error")]


# --- FUTURE_LEAK -------------------------------------------------------------------------

@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("length", [8, 64])
def test_a_correctly_masked_decoder_with_next_token_targets_passes(framework, length):
    ids, targets, _ = batch(framework, length)
    res = nd.check_dependencies(gpt(framework, length=length), ids, targets)
    assert res.passed, str(res)
    assert res.offset == 1 and "future leak" in res.checked


@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("bug", [{"mask": "none"}, {"mask": "inverted"}, {"merge": "view"}])
def test_a_decoder_that_reads_the_future_is_named_at_its_attention(framework, bug):
    ids, targets, _ = batch(framework, 16)
    res = nd.check_dependencies(gpt(framework, length=16, **bug), ids, targets)
    assert codes(res) == ["FUTURE_LEAK"], str(res)
    assert res.findings[0].where == "attn"


@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("length,leak", [(8, (2, 5)), (64, (10, 40)), (64, (0, 63)), (64, (62, 63))])
def test_a_leak_from_one_single_future_position_is_found_exactly(framework, length, leak):
    ids, targets, _ = batch(framework, length)
    res = nd.check_dependencies(gpt(framework, length=length, leak=leak), ids, targets)
    assert codes(res) == ["FUTURE_LEAK"], str(res)
    evidence = res.findings[0].evidence
    assert evidence["pairs"] == [list(leak)] and evidence["n_pairs"] == 1


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_causal_true_checks_without_targets_and_a_bidirectional_encoder_passes_without(framework):
    ids, _, _ = batch(framework, 12)
    encoder = FRAMEWORKS[framework].Encoder(length=12)
    assert nd.check_dependencies(encoder, ids).passed                      # no next-token task
    tags = (ids * 0 + 3)                                                  # a tagging task
    assert nd.check_dependencies(encoder, ids, tags).passed
    assert codes(nd.check_dependencies(encoder, ids, causal=True)) == ["FUTURE_LEAK"]


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_padding_hidden_by_a_mask_passes(framework):
    ids, targets, pad = batch(framework, 16, size=4, pad_tail=5)
    model = gpt(framework, length=16, padding=True)
    pad_in = torch.as_tensor(pad) if framework == "torch" else pad
    res = nd.check_dependencies(model, (ids, pad_in), targets)
    assert res.passed and res.offset == 1, str(res)


def test_a_torch_transformer_layer_without_its_causal_mask_is_named():
    class LM(torch.nn.Module):
        def __init__(self, causal):
            super().__init__()
            self.causal = causal
            self.emb = torch.nn.Embedding(16, 16)
            self.pos = torch.nn.Parameter(torch.randn(12, 16) * 0.1)
            self.layer = torch.nn.TransformerEncoderLayer(16, 2, 32, dropout=0.1, batch_first=True)
            self.head = torch.nn.Linear(16, 16)

        def forward(self, ids):
            T = ids.shape[1]
            mask = torch.nn.Transformer.generate_square_subsequent_mask(T) if self.causal else None
            return self.head(self.layer(self.emb(ids) + self.pos[:T], src_mask=mask))

    torch.manual_seed(0)
    ids, targets, _ = batch("torch", 12)
    assert nd.check_dependencies(LM(True).train(), ids, targets).passed
    res = nd.check_dependencies(LM(False), ids, targets)
    assert codes(res) == ["FUTURE_LEAK"] and res.findings[0].where == "layer.self_attn", str(res)
    assert "mask" in res.findings[0].fix


# --- BATCH_MIXING ------------------------------------------------------------------------

class TorchPairMixer(torch.nn.Module):
    """Sample 0's output also reads sample 1 (one pair of one batch)."""

    def __init__(self):
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.Tanh())
        self.head = torch.nn.Linear(8, 3)

    def forward(self, x):
        h = self.body(x)
        mix = torch.eye(x.shape[0], dtype=h.dtype)
        mix[0, 1] = 1e-3
        return self.head(mix @ h)


class MinigradPairMixer(mnn.Module):
    def __init__(self):
        super().__init__()
        self.body = mnn.Sequential(mnn.Linear(6, 8), mnn.Tanh())
        self.head = mnn.Linear(8, 3)

    def forward(self, x):
        h = self.body(x)
        mix = np.eye(x.shape[0])
        mix[0, 1] = 1e-3
        return self.head(mg.tensor(mix.astype(h.dtype)) @ h)


@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("size", [2, 5, 16])
def test_mixing_of_a_single_pair_of_samples_is_found(framework, size):
    x = np.random.default_rng(size).normal(size=(size, 6)).astype(np.float32)
    if framework == "torch":
        torch.manual_seed(0)
        model, data = TorchPairMixer(), torch.as_tensor(x)
    else:
        mg.manual_seed(0)
        model, data = MinigradPairMixer(), x
    res = nd.check_dependencies(model, data)
    assert codes(res) == ["BATCH_MIXING"], str(res)
    assert res.findings[0].evidence["pairs"] == [[0, 1]]
    assert res.findings[0].where == ""     # made in the model's own forward
    assert res.findings[0].evidence["last_clean_module"] in ("body", "body.1")


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_view_in_place_of_a_transpose_mixes_samples(framework):
    ids, targets, _ = batch(framework, 10, size=3)
    res = nd.check_dependencies(gpt(framework, length=10, seq_first_view=True), ids, targets)
    assert codes(res) == ["BATCH_MIXING"], str(res)
    assert "permute" in res.findings[0].fix or "transpose" in res.findings[0].fix


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_table_indexed_by_batch_size_makes_outputs_depend_on_the_place_in_the_batch(framework):
    ids, targets, _ = batch(framework, 10, size=4)
    res = nd.check_dependencies(gpt(framework, length=10, pos="batch"), ids, targets)
    assert codes(res) == ["BATCH_MIXING"], str(res)
    assert res.findings[0].evidence["kind"] == "place in batch"


def test_a_sequence_first_attention_fed_batch_first_is_named_with_its_fix():
    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inp = torch.nn.Linear(4, 8)
            self.attn = torch.nn.MultiheadAttention(8, 2)          # batch_first=False
            self.out = torch.nn.Linear(8, 2)

        def forward(self, x):
            h = self.inp(x)
            return self.out(self.attn(h, h, h)[0].mean(1))

    torch.manual_seed(0)
    res = nd.check_dependencies(Model(), torch.randn(5, 7, 4))
    assert codes(res) == ["BATCH_MIXING"] and res.findings[0].where == "attn", str(res)
    assert "batch_first=True" in res.findings[0].fix


def test_batch_norm_in_training_mode_is_not_mixing_and_its_statistics_stay_untouched():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(5, 8), torch.nn.BatchNorm1d(8), torch.nn.ReLU(),
                                torch.nn.Linear(8, 2)).train()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    res = nd.check_dependencies(model, torch.randn(6, 5), torch.randint(0, 2, (6,)))
    assert res.passed and any("eval mode" in n for n in res.notes), str(res)
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    assert model.training and model[1].training

    mg.manual_seed(0)
    mmodel = mnn.Sequential(mnn.Linear(5, 8), mnn.BatchNorm1d(8), mnn.ReLU(), mnn.Linear(8, 2))
    assert nd.check_dependencies(mmodel, np.random.randn(6, 5).astype(np.float32)).passed


def test_batch_norm_without_running_statistics_is_reported_as_the_reason_not_a_bug():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(5, 8), torch.nn.BatchNorm1d(8, track_running_stats=False),
                                torch.nn.Linear(8, 2))
    res = nd.check_dependencies(model, torch.randn(6, 5))
    assert res.passed
    assert [(f.code, f.severity, f.where) for f in res.findings] == [("BATCH_MIXING", "info", "1")]


# --- TARGETS_IN_INPUTS / LABELS_MISALIGNED ---------------------------------------------------

@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_unshifted_and_wrongly_shifted_labels_are_named_with_their_offset(framework):
    ids, targets, _ = batch(framework, 16)
    model = gpt(framework, length=16)
    same = nd.check_dependencies(model, ids, ids)
    assert codes(same) == ["TARGETS_IN_INPUTS"] and same.offset == 0, str(same)
    back = nd.check_dependencies(model, ids[:, 1:], ids[:, :-1])
    assert codes(back) == ["LABELS_MISALIGNED"] and back.offset == -1
    assert back.findings[0].severity == "error"
    twice = nd.check_dependencies(model, ids[:, :-1], ids[:, 1:][:, 1:])     # shifted twice
    assert codes(twice) == ["LABELS_MISALIGNED"] and twice.offset == 2
    assert nd.check_dependencies(model, ids[:, :-2], ids[:, 2:], task_offset=2).passed


def test_a_float_autoencoder_is_not_a_copy_bug_and_ignored_targets_are_left_out():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 3), torch.nn.Linear(3, 6))
    x = torch.randn(8, 6)
    assert nd.check_dependencies(model, x, x).passed
    rng = np.random.default_rng(0)
    ids = rng.integers(1, 50, size=(4, 20))
    targets = np.full_like(ids, -100)
    targets[:, :-1] = ids[:, 1:]
    targets[:, :10] = -100                       # a prompt whose targets are ignored
    assert measure_offset(ids, targets)[0] == 1


@settings(max_examples=40, deadline=None)
@given(shift=st.integers(-3, 3), vocab=st.integers(3, 500), length=st.integers(6, 40),
       seed=st.integers(0, 10 ** 6))
def test_the_measured_offset_is_the_shift_that_made_the_targets(shift, vocab, length, seed):
    rng = np.random.default_rng(seed)
    seq = rng.integers(0, vocab, size=(4, length + 6))
    ids = seq[:, 3:3 + length]
    targets = seq[:, 3 + shift:3 + shift + length]
    found = measure_offset(ids, targets)
    chance = sum((np.mean(ids == v)) ** 2 for v in np.unique(ids))
    if chance < 0.3:          # with few tokens, chance agreement can hide the shift
        assert found is not None and found[0] == shift


def test_float_labels_of_whole_numbers_are_compared_as_ids():
    """A binary loss takes its 0/1 labels as floats (real-bug batch 146: a knowledge tracer
    whose float32 targets are the int64 responses it reads at the same positions)."""
    rng = np.random.default_rng(2)
    responses = rng.integers(0, 2, size=(16, 30))
    assert measure_offset(responses, responses.astype(np.float32))[0] == 0      # a copy
    future = rng.integers(0, 2, size=(16, 31))
    assert measure_offset(future[:, :-1], future[:, 1:].astype(np.float32))[0] == 1   # next
    assert measure_offset(responses, responses + rng.normal(0, 0.1, responses.shape)) is None
    assert measure_offset(responses, rng.integers(0, 2, (16, 30)).astype(np.float32)) is None


def test_random_targets_measure_no_offset():
    rng = np.random.default_rng(1)
    assert measure_offset(rng.integers(0, 100, (4, 30)), rng.integers(0, 100, (4, 30))) is None


# --- POSITIONS_IGNORED ---------------------------------------------------------------------

@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_positional_embedding_that_never_reaches_the_output_is_named(framework):
    ids, targets, _ = batch(framework, 12)
    res = nd.check_dependencies(gpt(framework, length=12, pos="unused"), ids, targets)
    assert codes(res) == ["POSITIONS_IGNORED"] and res.findings[0].where == "pos_emb", str(res)
    zeros = nd.check_dependencies(gpt(framework, length=12, pos="zeros"), ids, targets)
    assert codes(zeros) == ["POSITIONS_IGNORED"] and zeros.findings[0].where == "pos_emb"
    assert nd.check_dependencies(gpt(framework, length=12, pos=None), ids, targets).passed


def test_a_zero_initialised_positional_embedding_is_not_reported():
    model = gpt("torch", length=12)
    torch.nn.init.zeros_(model.pos_emb.weight)
    ids, targets, _ = batch("torch", 12)
    res = nd.check_dependencies(model, ids, targets)
    assert res.passed and any("all zeros" in n for n in res.notes), str(res)
    assert not model.pos_emb.weight.abs().sum()


def test_an_order_blind_pooling_classifier_with_positions_unused_is_named():
    class Pool(torch.nn.Module):
        def __init__(self, use):
            super().__init__()
            self.use = use
            self.emb = torch.nn.Linear(3, 8)
            self.position_embeddings = torch.nn.Parameter(torch.randn(10, 8))
            self.mix = torch.nn.Linear(8, 8)
            self.head = torch.nn.Linear(8, 2)

        def forward(self, x):
            h = self.emb(x) + (self.position_embeddings if self.use else 0)
            return self.head(torch.tanh(self.mix(h)).amax(dim=1))

    torch.manual_seed(0)
    x = torch.randn(4, 10, 3)
    assert nd.check_dependencies(Pool(True), x).passed
    assert codes(nd.check_dependencies(Pool(False), x)) == ["POSITIONS_IGNORED"]


# --- the user's state, odd models, bad input ---------------------------------------------------

@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_model_modes_grads_flags_and_rng_are_left_exactly_as_they_were(framework):
    ids, targets, _ = batch(framework, 12)
    model = gpt(framework, length=12, mask="none")
    adapter = adapt(model)
    model.train()
    model.attn.eval()
    params = [p for _, p in adapter.named_parameters()]
    params[0].requires_grad = False
    if framework == "torch":
        params[1].grad = torch.ones_like(params[1])
    else:
        params[1].grad = np.ones_like(params[1].data)
    state = adapter.capture_state()
    rng_before = adapter.get_rng_state()
    res = nd.check_dependencies(model, ids, targets)
    assert codes(res) == ["FUTURE_LEAK"]
    assert adapter.state_differences(state) == []
    assert adapter.rng_equal(rng_before, adapter.get_rng_state())
    with pytest.raises(ValueError):
        nd.check_dependencies(model, ids[:, :3].reshape(-1)[0], targets)
    assert adapter.state_differences(state) == []


def test_a_scalar_input_gets_a_clear_error():
    model = torch.nn.Linear(1, 1)
    with pytest.raises(ValueError, match="batch dimension"):
        nd.check_dependencies(model, torch.tensor(3.0))


def test_a_model_that_hard_codes_its_batch_size_and_returns_a_dict_is_still_probed():
    class Fixed(torch.nn.Module):
        def __init__(self, leak):
            super().__init__()
            self.leak = leak
            self.emb = torch.nn.Embedding(16, 8)
            self.head = torch.nn.Linear(8, 16)

        def forward(self, ids):
            h = self.emb(ids).view(4, ids.shape[1], 8)           # only batches of 4
            if self.leak:
                h = h + h[:, -1:]                                # every position reads the last
            return {"logits": self.head(h)}

    ids, targets, _ = batch("torch", 10, size=4)
    assert nd.check_dependencies(Fixed(False), ids, targets).passed
    res = nd.check_dependencies(Fixed(True), ids, targets)
    assert codes(res) == ["FUTURE_LEAK"], str(res)


def test_the_cost_is_a_few_passes():
    ids, targets, _ = batch("torch", 64)
    res = nd.check_dependencies(gpt("torch", length=64), ids, targets)
    assert res.n_forward <= 16 and res.n_backward == 0
    assert "dependency check: PASSED" in str(res)


# --- inside nd.watch -----------------------------------------------------------------------

def train_gpt(framework, steps=6, watched=True, **switches):
    """A few Adam steps of a tiny GPT; returns (monitor or None, final weights)."""
    model = gpt(framework, length=16, **switches)
    if framework == "torch":
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        loss_fn = torch.nn.CrossEntropyLoss()
    else:
        import minigrad.optim as moptim
        opt = moptim.Adam(model.parameters(), lr=1e-3)
        loss_fn = mnn.CrossEntropyLoss()
    options = {"loss_fn": loss_fn} if "loss_fn" in _watch_parameters() else {}
    mon = nd.watch(model, opt, overhead=None, **options) if watched else None
    for step in range(steps):
        ids, targets, _ = FRAMEWORKS[framework].lm_batch(batch=4, length=16, seed=step)
        opt.zero_grad()
        logits = model(ids if framework == "torch" else mg.tensor(ids))
        y = targets if framework == "torch" else mg.tensor(targets)
        loss = loss_fn(logits.reshape(-1, 16), y.reshape(-1))
        loss.backward()
        opt.step()
        if mon:
            mon.step(loss)
    if mon:
        mon.close()
    return mon, [adapt(model).to_numpy(p) for _, p in adapt(model).named_parameters()]


def _watch_parameters():
    import inspect
    return inspect.signature(nd.watch).parameters


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_watch_runs_the_probes_once_early_and_training_is_unchanged(framework):
    mon, watched = train_gpt(framework, seq_first_view=True)
    found = [f for f in mon.findings() if f.code == "BATCH_MIXING"]
    # once, on the first (judged) record after the warm-up steps 0-2
    assert len(found) == 1 and found[0].step in (3, 4), mon.report()
    _, unwatched = train_gpt(framework, watched=False, seq_first_view=True)
    assert all(np.array_equal(a, b) for a, b in zip(watched, unwatched))
    healthy, _ = train_gpt(framework)
    assert not [f for f in healthy.findings() if f.severity != "info"], healthy.report()


@pytest.mark.skipif("loss_fn" not in _watch_parameters(), reason="watch does not see targets yet")
@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_watch_reads_the_targets_reaching_the_loss_and_names_a_future_leak(framework):
    mon, _ = train_gpt(framework, mask="none")
    assert [f.where for f in mon.findings() if f.code == "FUTURE_LEAK"] == ["attn"], mon.report()


# --- layouts that look like mixing but are not ---------------------------------------------------

def test_sequence_first_data_and_pairwise_scores_are_not_called_mixing():
    class SeqFirstLM(torch.nn.Module):            # the word_language_model layout: (T, B)
        def __init__(self):
            super().__init__()
            self.emb = torch.nn.Embedding(20, 16)
            layer = torch.nn.TransformerEncoderLayer(16, 2, 32, 0.0)
            self.enc = torch.nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
            self.dec = torch.nn.Linear(16, 20)

        def forward(self, src):
            mask = torch.nn.Transformer.generate_square_subsequent_mask(src.size(0))
            return self.dec(self.enc(self.emb(src), mask))

    class Contrastive(torch.nn.Module):           # CLIP-like: (B, B) similarity logits
        def __init__(self):
            super().__init__()
            self.image, self.text = torch.nn.Linear(6, 8), torch.nn.Linear(6, 8)

        def forward(self, image, text):
            return self.image(image) @ self.text(text).t()

    torch.manual_seed(0)
    data = torch.randint(0, 20, (13, 5))
    res = nd.check_dependencies(SeqFirstLM(), data[:12], data[1:].reshape(-1))
    assert res.passed and any("sequence-first" in n for n in res.notes), str(res)
    res = nd.check_dependencies(Contrastive(), (torch.randn(8, 6), torch.randn(8, 6)), torch.arange(8))
    assert res.passed and any("pairwise" in n for n in res.notes), str(res)


def test_relative_position_biases_and_bce_pos_weight_are_not_positional_tensors():
    from nndebug.probes.dependencies.positions import positional_tensors

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.pos_emb = torch.nn.Embedding(8, 4)
            self.rel_pos_bias = torch.nn.Parameter(torch.zeros(15))
            self.relative_attention_bias = torch.nn.Embedding(32, 2)
            self.loss = torch.nn.BCEWithLogitsLoss(pos_weight=torch.ones(3))
            self.pos_tagger = torch.nn.Linear(4, 4)

    assert [n for n, _ in positional_tensors(adapt(Model()))] == ["pos_emb.weight"]


# --- other sequence layouts ---------------------------------------------------------------------

class RecurrentLM(torch.nn.Module):
    def __init__(self, bidirectional):
        super().__init__()
        self.embed = torch.nn.Embedding(20, 8)
        self.rnn = torch.nn.LSTM(8, 8, batch_first=True, bidirectional=bidirectional)
        self.head = torch.nn.Linear(16 if bidirectional else 8, 20)

    def forward(self, ids):
        return self.head(self.rnn(self.embed(ids))[0])


class ConvLM(torch.nn.Module):
    """Logits laid out (B, vocab, T) for cross_entropy; causal = padded on the left only."""

    def __init__(self, causal):
        super().__init__()
        self.causal = causal
        self.embed = torch.nn.Embedding(20, 8)
        self.conv = torch.nn.Conv1d(8, 8, 3, padding=0 if causal else 1)
        self.head = torch.nn.Conv1d(8, 20, 1)

    def forward(self, ids):
        h = self.embed(ids).transpose(1, 2)
        if self.causal:
            h = torch.nn.functional.pad(h, (2, 0))
        return self.head(torch.relu(self.conv(h)))


@pytest.mark.parametrize("healthy,broken,where", [(RecurrentLM(False), RecurrentLM(True), "rnn"),
                                                  (ConvLM(True), ConvLM(False), "conv")])
def test_recurrent_and_convolutional_language_models(healthy, broken, where):
    seq = torch.randint(0, 20, (3, 101), generator=torch.Generator().manual_seed(0))
    ids, targets = seq[:, :-1], seq[:, 1:]                 # 100 positions: the first 64 probed
    assert nd.check_dependencies(healthy, ids, targets).passed
    res = nd.check_dependencies(broken, ids, targets)
    assert codes(res) == ["FUTURE_LEAK"] and res.findings[0].where == where, str(res)


def test_a_dict_output_that_begins_with_the_loss_is_read_at_its_logits():
    class HFStyle(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lm = RecurrentLM(True)

        def forward(self, input_ids, labels=None):
            logits = self.lm(input_ids)
            return {"loss": logits.mean(), "logits": logits}

    seq = torch.randint(0, 20, (3, 11), generator=torch.Generator().manual_seed(0))
    res = nd.check_dependencies(HFStyle(), {"input_ids": seq[:, :-1], "labels": seq[:, 1:]},
                                seq[:, 1:])
    assert codes(res) == ["FUTURE_LEAK"] and res.findings[0].where == "lm.rnn", str(res)


# --- PADDING_LEAK ---------------------------------------------------------------------------------

@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_an_encoder_that_ignores_its_padding_mask_is_named(framework):
    ids, _, pad = batch(framework, 12, size=4, pad_tail=4)
    pad_in = torch.as_tensor(pad) if framework == "torch" else pad
    encoder = FRAMEWORKS[framework].Encoder(length=12, padding=True)
    assert nd.check_dependencies(encoder, (ids, pad_in)).passed           # the mask is used
    res = nd.check_dependencies(encoder, (ids, pad_in * False))          # all False: pad ignored
    assert res.passed                                                     # no padding to judge
    class Forgetful(type(encoder)):
        def forward(self, ids, pad=None):
            return super().forward(ids)                                   # BUG: mask dropped
    (torch.manual_seed if framework == "torch" else mg.manual_seed)(0)
    res = nd.check_dependencies(Forgetful(length=12, padding=True), (ids, pad_in))
    assert codes(res) == ["PADDING_LEAK"] and res.findings[0].where == "attn", str(res)
    assert res.findings[0].evidence["padded_positions"] == [8, 9, 10, 11]


def test_padding_found_from_an_attention_mask_or_padding_idx_and_token_types_left_alone():
    class Encoder(torch.nn.Module):
        def __init__(self, use_mask, mask_from_ids=False):
            super().__init__()
            self.use_mask, self.mask_from_ids = use_mask, mask_from_ids
            self.tok = torch.nn.Embedding(16, 8, padding_idx=0)
            self.types = torch.nn.Embedding(2, 8)
            self.attn = torch.nn.MultiheadAttention(8, 2, batch_first=True)

        def forward(self, input_ids, attention_mask=None, token_type_ids=None):
            x = self.tok(input_ids) + (0 if token_type_ids is None else self.types(token_type_ids))
            hide = None
            if self.mask_from_ids:
                hide = input_ids == 0
            elif self.use_mask:
                hide = attention_mask == 0
            return self.attn(x, x, x, key_padding_mask=hide)[0]

    torch.manual_seed(0)
    ids = torch.randint(1, 16, (4, 10), generator=torch.Generator().manual_seed(1))
    ids[1, 6:] = 0
    ids[3, 8:] = 0
    mask = (ids != 0).long()
    types = torch.zeros_like(ids)
    types[:, 5:] = 1                                # two segments: not padding
    inputs = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
    assert nd.check_dependencies(Encoder(True), inputs).passed
    res = nd.check_dependencies(Encoder(False), inputs)
    assert codes(res) == ["PADDING_LEAK"] and "attention_mask" in res.findings[0].evidence["found_from"]
    assert nd.check_dependencies(Encoder(False, mask_from_ids=True), ids).passed
    res = nd.check_dependencies(Encoder(False), ids)
    assert codes(res) == ["PADDING_LEAK"] and "padding_idx" in res.findings[0].evidence["found_from"]
    no_padding = {"input_ids": torch.randint(1, 16, (4, 10)), "token_type_ids": types}
    assert nd.check_dependencies(Encoder(False), no_padding).passed


# --- properties: any single leak, any single mixed pair, exactly -----------------------------------

@settings(max_examples=12, deadline=None)
@given(data=st.data(), length=st.integers(2, 48))
def test_any_single_future_position_leak_is_found_exactly(data, length):
    t = data.draw(st.integers(0, length - 2))
    p = data.draw(st.integers(t + 1, length - 1))
    ids, targets, _ = batch("torch", length, size=2)
    res = nd.check_dependencies(gpt("torch", length=length, dim=8, leak=(t, p)), ids, targets)
    assert codes(res) == ["FUTURE_LEAK"] and res.findings[0].evidence["pairs"] == [[t, p]]


class TorchAnyPairMixer(torch.nn.Module):
    """Sample i's output also reads sample j (i != j), for one given pair."""

    def __init__(self, i, j):
        super().__init__()
        self.i, self.j = i, j
        self.body = torch.nn.Linear(5, 4)

    def forward(self, x):
        h = torch.tanh(self.body(x))
        mix = torch.eye(x.shape[0], dtype=h.dtype)
        if max(self.i, self.j) < x.shape[0]:
            mix[self.i, self.j] = 1e-6
        return mix @ h


@settings(max_examples=15, deadline=None)
@given(data=st.data(), size=st.integers(2, 8))
def test_any_single_mixed_pair_of_samples_is_found_exactly(data, size):
    i = data.draw(st.integers(0, size - 1))
    j = data.draw(st.integers(0, size - 1).filter(lambda k: k != i))
    torch.manual_seed(0)
    x = torch.randn(size, 5, generator=torch.Generator().manual_seed(size))
    res = nd.check_dependencies(TorchAnyPairMixer(i, j), x)
    assert codes(res) == ["BATCH_MIXING"] and res.findings[0].evidence["pairs"] == [[i, j]]


# --- minigrad's own sequence layers ----------------------------------------------------------------

class MinigradLayersLM(mnn.Module):
    """Embedding -> a minigrad sequence layer -> head; ``kind`` picks the layer and its bug."""

    def __init__(self, kind, broken):
        super().__init__()
        self.kind, self.broken = kind, broken
        self.embed = mnn.Embedding(16, 8)
        if kind == "gru":
            self.layer = mnn.GRU(8, 8, batch_first=True, bidirectional=broken)
        else:
            self.layer = mnn.TransformerEncoderLayer(8, 2, 16, dropout=0.1, batch_first=True)
        self.head = mnn.Linear(16 if kind == "gru" and broken else 8, 16)

    def forward(self, ids):
        h = self.embed(ids)
        if self.kind == "gru":
            return self.head(self.layer(h)[0])
        length = ids.shape[1]
        mask = None if self.broken else \
            mg.tensor(np.triu(np.full((length, length), -np.inf), 1).astype(np.float32))
        return self.head(self.layer(h, src_mask=mask))


@pytest.mark.parametrize("kind,where", [("gru", "layer"), ("transformer", "layer.self_attn")])
def test_minigrad_sequence_layers(kind, where):
    seq = np.random.default_rng(0).integers(0, 16, (3, 13))
    mg.manual_seed(0)
    assert nd.check_dependencies(MinigradLayersLM(kind, False).train(), seq[:, :-1], seq[:, 1:]).passed
    res = nd.check_dependencies(MinigradLayersLM(kind, True), seq[:, :-1], seq[:, 1:])
    assert codes(res) == ["FUTURE_LEAK"] and res.findings[0].where == where, str(res)


# --- a loss that shifts by itself -----------------------------------------------------------------

@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_loss_that_shifts_the_targets_itself_is_read_off_its_gradient(framework):
    F = torch.nn.functional if framework == "torch" else mnn.functional

    def shifting(logits, y):              # targets = input ids, shifted inside the loss
        return F.cross_entropy(logits[:, :-1].reshape(-1, 16), y[:, 1:].reshape(-1))

    def plain(logits, y):
        return F.cross_entropy(logits.reshape(-1, 16), y.reshape(-1))

    ids, targets, _ = batch(framework, 12)
    model = gpt(framework, length=12)
    assert nd.check_dependencies(model, ids, ids, loss_fn=shifting).passed
    assert codes(nd.check_dependencies(model, ids, ids, loss_fn=plain)) == ["TARGETS_IN_INPUTS"]
    twice = nd.check_dependencies(model, ids, targets, loss_fn=shifting)
    assert codes(twice) == ["LABELS_MISALIGNED"] and twice.offset == 2
    leaky = nd.check_dependencies(gpt(framework, length=12, mask="none"), ids, ids, loss_fn=shifting)
    assert codes(leaky) == ["FUTURE_LEAK"]


def test_watch_passes_its_loss_function_to_the_probe():
    if "loss_fn" not in _watch_parameters():
        pytest.skip("watch does not take loss_fn")
    F = torch.nn.functional

    def shifting(logits, y):
        return F.cross_entropy(logits[:, :-1].reshape(-1, 16), y[:, 1:].reshape(-1))

    torch.manual_seed(0)
    model = gpt("torch", length=16)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, opt, overhead=None, loss_fn=shifting) as mon:
        for step in range(6):
            ids, _, _ = tseq.lm_batch(batch=4, length=16, seed=step)
            opt.zero_grad()
            loss = mon.loss_fn(model(ids), ids)
            loss.backward()
            opt.step()
            mon.step(loss)
    assert mon.run.observed.targets                  # the probe had targets equal to the inputs
    assert not [f for f in mon.findings() if f.code in ("TARGETS_IN_INPUTS", "LABELS_MISALIGNED")], \
        mon.report()


# --- encoder-decoder: the targets follow the decoder input -------------------------------------------

class Seq2Seq(torch.nn.Module):
    def __init__(self, causal=True):
        super().__init__()
        self.causal = causal
        self.embed = torch.nn.Embedding(20, 16)
        self.pos = torch.nn.Embedding(32, 16)
        self.transformer = torch.nn.Transformer(16, 2, 1, 1, 32, dropout=0.1, batch_first=True)
        self.head = torch.nn.Linear(16, 20)

    def forward(self, src, tgt):
        def embed(ids):
            return self.embed(ids) + self.pos(torch.arange(ids.shape[1]))
        mask = torch.nn.Transformer.generate_square_subsequent_mask(tgt.shape[1]) if self.causal \
            else None
        return self.head(self.transformer(embed(src), embed(tgt), tgt_mask=mask))


def test_an_encoder_decoder_copy_task_is_judged_on_its_decoder_input():
    torch.manual_seed(0)
    src = torch.randint(3, 20, (4, 10), generator=torch.Generator().manual_seed(0))
    translation = torch.randint(3, 20, (4, 10), generator=torch.Generator().manual_seed(1))
    for tgt_out in (src.clone(), translation):                      # a copy task, a translation
        tgt_in = torch.cat([torch.ones(4, 1, dtype=torch.long), tgt_out[:, :-1]], 1)
        assert nd.check_dependencies(Seq2Seq(), (src, tgt_in), tgt_out).passed
        leak = nd.check_dependencies(Seq2Seq(causal=False), (src, tgt_in), tgt_out)
        assert codes(leak) == ["FUTURE_LEAK"]
        assert leak.findings[0].where == "transformer.decoder.layers.0.self_attn"
    unshifted = nd.check_dependencies(Seq2Seq(), (src, translation), translation)
    assert codes(unshifted) == ["TARGETS_IN_INPUTS"]


@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("pair", [(12, 3), (63, 40), (9, 8)])
def test_a_single_mixed_pair_outside_the_probed_slice_is_still_found(framework, pair):
    size = 64
    x = np.random.default_rng(1).normal(size=(size, 5)).astype(np.float32)
    i, j = pair
    if framework == "torch":
        model, data = TorchAnyPairMixer(i, j), torch.as_tensor(x)
    else:
        class MinigradAnyPairMixer(mnn.Module):
            def __init__(self):
                super().__init__()
                self.body = mnn.Linear(5, 4)

            def forward(self, x):
                h = self.body(x).tanh()
                mix = np.eye(x.shape[0])
                if max(i, j) < x.shape[0]:
                    mix[i, j] = 1e-6
                return mg.tensor(mix, dtype=h.dtype) @ h   # as the torch twin: h's dtype
        mg.manual_seed(0)
        model, data = MinigradAnyPairMixer(), x
    res = nd.check_dependencies(model, data)
    assert codes(res) == ["BATCH_MIXING"] and res.findings[0].evidence["pairs"] == [[i, j]], str(res)
    if framework == "torch":           # healthy: the whole batch screened in a few passes
        healthy = nd.check_dependencies(TorchAnyPairMixer(size, size), data)
        assert healthy.passed and healthy.n_forward + healthy.n_backward <= 40


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_label_column_left_in_the_features_is_named(framework):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 6)).astype(np.float32)
    y = rng.integers(0, 3, size=32)
    leaky = x.copy()
    leaky[:, 4] = y
    if framework == "torch":
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
        x, leaky, y = torch.as_tensor(x), torch.as_tensor(leaky), torch.as_tensor(y)
    else:
        mg.manual_seed(0)
        model = mnn.Sequential(mnn.Linear(6, 8), mnn.ReLU(), mnn.Linear(8, 3))
    assert nd.check_dependencies(model, x, y).passed
    res = nd.check_dependencies(model, leaky, y)
    assert codes(res) == ["TARGETS_IN_INPUTS"] and res.findings[0].evidence["columns"] == [4]
    # a regression target (floats) left in the table is named too; its twin, a target that
    # is no column, passes (a column merely close to it is not the target)
    target = rng.normal(size=32).astype(np.float32)
    features = rng.normal(size=(32, 6)).astype(np.float32)
    features[:, 1] = target + 1e-3
    leaky_regression = features.copy()
    leaky_regression[:, 2] = target
    if framework == "torch":
        target, features, leaky_regression = (torch.as_tensor(a) for a in
                                               (target, features, leaky_regression))
    assert nd.check_dependencies(model, features, target).passed
    res = nd.check_dependencies(model, leaky_regression, target)
    assert codes(res) == ["TARGETS_IN_INPUTS"] and res.findings[0].evidence["columns"] == [2]


def test_stateful_models_and_graphs_are_not_read_as_mixing():
    class Stateful(torch.nn.Module):          # carries its state from call to call
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(4, 4)
            self.register_buffer("state", torch.zeros(4))

        def forward(self, x):
            out = self.lin(x) + self.state
            self.state = out.detach().mean(0)
            return out

    class GraphConv(torch.nn.Module):         # message passing along an edge list
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(4, 4)

        def forward(self, x, edge_index):
            h = self.lin(x)
            return h + torch.zeros_like(h).index_add_(0, edge_index[1], h[edge_index[0]])

    torch.manual_seed(0)
    x = torch.randn(10, 4)
    model = Stateful()
    res = nd.check_dependencies(model, x)
    # named for what it is (state carried from call to call), never as batch mixing
    assert codes(res) == ["STATE_CARRIED_ACROSS_BATCHES"], str(res)
    assert any("same inputs" in n for n in res.notes), str(res)
    assert not model.state.abs().sum()                            # its state is untouched
    edges = torch.tensor([[0, 1, 2, 3], [1, 2, 3, 4]])
    res = nd.check_dependencies(GraphConv(), (x, edges))
    assert res.passed and any("graph" in n for n in res.notes), str(res)


def test_dropout_that_eval_cannot_reach_is_not_called_batch_mixing():
    """A Dropout built inside forward stays random in eval mode; with the RNG replayed before
    each probing call its masks repeat row by row, which must not read as mixing."""
    torch = pytest.importorskip("torch")

    class DropoutInForward(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.features, self.head = torch.nn.Linear(12, 16), torch.nn.Linear(16, 3)

        def forward(self, x):
            return self.head(torch.nn.Dropout(0.5)(self.features(x)))

    torch.manual_seed(0)
    result = nd.check_dependencies(DropoutInForward(), torch.randn(16, 12),
                                   torch.randint(0, 3, (16,)))
    assert "BATCH_MIXING" not in {f.code for f in result.findings}
    assert any("random" in note for note in result.notes), result.notes


def test_watch_skips_model_runs_on_a_sample_wise_sequential_but_still_sees_a_label_column():
    """A Sequential of per-sample layers cannot mix samples: watch does not spend model runs
    on it, and the data-only check (an input column that is the label) still runs."""
    torch = pytest.importorskip("torch")
    from nndebug.probes.dependencies import watching
    torch.manual_seed(0)
    x = torch.randn(64, 6)
    y = (x[:, 0] > 0).long()
    x[:, 3] = y.float()                               # the label left among the features
    model = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
    assert watching._sample_wise(nd.adapt(model))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    loss_fn = torch.nn.CrossEntropyLoss()
    with nd.watch(model, opt, loss_fn=loss_fn, overhead=None) as mon:
        for _ in range(8):
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            mon.step(loss)
    assert "TARGETS_IN_INPUTS" in {f.code for f in mon.findings()}
    mixer = torch.nn.Sequential(torch.nn.Linear(6, 4), torch.nn.Softmax(dim=0))
    assert not watching._sample_wise(nd.adapt(mixer))


@pytest.mark.parametrize("mixes", [True, False], ids=["mixes the batch", "healthy"])
def test_watch_probes_a_model_that_takes_its_batch_as_one_dict(mixes):
    """model(batch) with batch = {"x": ..., "scale": ...}: ONE positional argument. The probe
    must call the model the same way (model(batch), not model(**batch), which fails and
    used to leave the probe silent)."""
    class DictModel(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(6, 3)

        def forward(self, batch):
            x = batch["x"] * batch["scale"]
            if mixes:                      # normalised over the batch: samples read each other
                x = x - x.mean(dim=0, keepdim=True)
            return self.lin(x)

    torch.manual_seed(0)
    model = DictModel()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    loss_fn = torch.nn.CrossEntropyLoss()
    with nd.watch(model, optimizer) as mon:
        for _ in range(8):
            batch = {"x": torch.randn(16, 6), "scale": torch.rand(16, 1) + 0.5}
            optimizer.zero_grad()
            loss = loss_fn(model(batch), torch.randint(0, 3, (16,)))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    codes = {f.code for f in mon.findings()}
    assert ("BATCH_MIXING" in codes) == mixes, mon.report()
