"""Real-bug batch 40 (transformer and language-model training): a masked LM whose loss reads
tokens it can see (LOSS_READS_UNMASKED_TOKENS), an attention model with no positional
information at all (POSITIONS_IGNORED, measured by shuffling the tokens), and documents
packed in a row that read the documents before them (ATTENTION_CROSSES_DOCUMENTS). The
fixed twins stay silent, and so do healthy variants: BERT's 80/10/10 masking, a causal LM,
a decoder fed its labels unshifted (TARGETS_IN_INPUTS' to name, not this code's), a
transformer whose positions are computed in forward (no buffer), a bag-of-words classifier
(order-blind by design, no attention), and packed rows with a block-diagonal mask."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import mlm_labels_keep_unmasked_tokens as mlm_copies  # noqa: E402
from benchmarks.real_bugs import mlm_mask_positions_off_by_one as mlm_off_by_one  # noqa: E402
from benchmarks.real_bugs import packed_documents_attend_across as packed  # noqa: E402
from benchmarks.real_bugs import transformer_encoder_without_positions as no_positions  # noqa: E402,E501
from benchmarks.real_bugs._common import characters, text_windows  # noqa: E402
from nndebug.monitor.document_boundaries import restart_columns  # noqa: E402
from nndebug.monitor.visible_targets import visible_share  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
MASKED = "LOSS_READS_UNMASKED_TOKENS"
ORDER = "POSITIONS_IGNORED"
PACKED = "ATTENTION_CROSSES_DOCUMENTS"
STEPS = 6


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


# --- LOSS_READS_UNMASKED_TOKENS --------------------------------------------------------------
@pytest.mark.parametrize("case", [mlm_copies, mlm_off_by_one])
def test_the_planted_masked_lm_reports_are_named(case):
    mon = case.run(steps=STEPS)
    assert MASKED in _problems(mon)
    evidence = next(f for f in mon.findings() if f.code == MASKED).evidence
    assert evidence["input_is_label"] / evidence["positions_read"] > 0.7


@pytest.mark.parametrize("case", [mlm_copies, mlm_off_by_one])
def test_the_fixed_masked_lm_twins_are_silent(case):
    assert MASKED not in _problems(case.run(fixed=True, steps=STEPS))


def _train_masked(make_batch, steps=STEPS):
    """A BiGRU masked LM trained on ``make_batch(window, mask_id, generator) -> (ids,
    labels)``; the closed monitor."""
    torch.manual_seed(0)
    ids, vocab = characters()
    model = mlm_copies.MaskedLM(vocab + 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    g = torch.Generator().manual_seed(0)
    with nd.watch(model, optimizer) as mon:
        for window in text_windows(ids, steps, length=30):
            inputs, labels = make_batch(window, vocab, g)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(inputs).transpose(1, 2), labels)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_bert_80_10_10_masking_is_silent():
    """BERT's recipe: of the 15% chosen, 80% [MASK], 10% a random token, 10% unchanged; the
    label visible at about a tenth of the positions read."""
    def bert(window, mask_id, g):
        chosen = torch.rand(window.shape, generator=g) < 0.15
        draw = torch.rand(window.shape, generator=g)
        inputs = window.clone()
        inputs[chosen & (draw < 0.8)] = mask_id
        random_ids = torch.randint(0, mask_id, window.shape, generator=g)
        swap = chosen & (draw >= 0.8) & (draw < 0.9)
        inputs[swap] = random_ids[swap]
        return inputs, window.masked_fill(~chosen, -100)
    assert MASKED not in _problems(_train_masked(bert))


def test_a_causal_lm_and_a_decoder_fed_its_labels_are_not_this_code():
    next_token = _train_masked(lambda w, mask_id, g: (w[:, :-1], w[:, 1:]))
    assert MASKED not in _problems(next_token)
    copied = _train_masked(lambda w, mask_id, g: (w, w.clone()))   # no corruption id
    assert MASKED not in _problems(copied)


class _LabelsInside(nn.Module):
    """The Hugging Face way: model(input_ids=..., labels=...) computes the loss inside, on
    flattened logits and labels."""

    def __init__(self, vocab):
        super().__init__()
        self.body = mlm_copies.MaskedLM(vocab)

    def forward(self, input_ids, labels=None):
        logits = self.body(input_ids)
        loss = F.cross_entropy(logits.view(-1, logits.shape[-1]), labels.view(-1))
        return {"loss": loss, "logits": logits}


@pytest.mark.parametrize("fixed", [False, True])
def test_labels_given_to_forward_are_read_too(fixed):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = _LabelsInside(vocab + 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    g = torch.Generator().manual_seed(0)
    with nd.watch(model, optimizer) as mon:
        for window in text_windows(ids, STEPS, length=30):
            inputs, labels = mlm_copies.masked_batch(window, vocab, fixed, g)
            optimizer.zero_grad()
            loss = model(input_ids=inputs, labels=labels)["loss"]
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert (MASKED in _problems(mon)) is not fixed


class _Denoiser(nn.Module):
    """BART's objective on a small scale: the encoder reads the masked text, the decoder
    writes all of it, fed the text shifted right (one embedding for both)."""

    def __init__(self, vocab, dim=48):
        super().__init__()
        self.embed = nn.Embedding(vocab + 1, dim)        # + a start id
        self.encoder = nn.GRU(dim, dim, batch_first=True)
        self.decoder = nn.GRU(dim, dim, batch_first=True)
        self.head = nn.Linear(dim, vocab)

    def forward(self, source, decoder_inputs):
        _, state = self.encoder(self.embed(source))
        return self.head(self.decoder(self.embed(decoder_inputs), state)[0])


def test_an_encoder_decoder_denoiser_writing_every_token_is_silent():
    torch.manual_seed(0)
    ids, vocab = characters()
    model = _Denoiser(vocab + 1)                           # + [MASK]
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    g = torch.Generator().manual_seed(0)
    with nd.watch(model, optimizer) as mon:
        for window in text_windows(ids, STEPS, length=30):
            source, labels = mlm_copies.masked_batch(window, vocab, False, g)   # all labels
            start = torch.full_like(labels[:, :1], vocab + 1)
            decoder_inputs = torch.cat([start, labels[:, :-1]], dim=1)
            optimizer.zero_grad()
            logits = model(source, decoder_inputs)
            loss = F.cross_entropy(logits.transpose(1, 2), labels)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert MASKED not in _problems(mon)


def test_visible_share_counts_read_positions_and_the_corruption_id():
    ids = np.array([[5, 9, 7, 9], [1, 2, 9, 4]])
    targets = np.array([[5, 6, 7, 8], [1, 2, 3, -100]])
    # read: 7 positions; same: 5, 7, 1, 2 -> 4; differ at 3 positions, all holding id 9
    assert visible_share(ids, targets, -100) == (7, 4, 9, 3, 3)
    # an id the targets hold is no corruption id
    assert visible_share(ids, np.array([[5, 9, 7, 8], [1, 2, 3, -100]]), -100)[3] == 0
    assert visible_share(ids, np.full((2, 4), -100), -100) is None
    assert visible_share(ids, targets.ravel(), -100) == (7, 4, 9, 3, 3)   # flattened targets


# --- POSITIONS_IGNORED (no positional tensor) ------------------------------------------------
def test_the_planted_order_blind_encoder_is_named():
    mon = no_positions.run(steps=STEPS)
    assert ORDER in _problems(mon)
    finding = next(f for f in mon.findings() if f.code == ORDER)
    assert finding.evidence["output"] == "pooled"


def test_the_fixed_encoder_with_a_positional_buffer_is_silent():
    assert ORDER not in _problems(no_positions.run(fixed=True, steps=STEPS))


class _OnTheFlyPositions(nn.Module):
    """The sinusoids computed in forward (no parameter or buffer to find): only the
    shuffle can tell that order reaches the output."""

    def __init__(self, vocab, dim=32, positions=True):
        super().__init__()
        self.positions = positions
        self.embed = nn.Embedding(vocab, dim)
        layer = nn.TransformerEncoderLayer(dim, 4, 64, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        x = self.embed(ids)
        if self.positions:
            x = x + no_positions.sinusoids(ids.shape[1], x.shape[-1])
        return self.head(self.encoder(x))           # one output per position


class _BagOfWords(nn.Module):
    """fastText-style: embeddings averaged, no attention: order-blind by design."""

    def __init__(self, vocab, dim=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        return self.head(self.embed(ids).mean(1))


def _train_next_character(model, per_position):
    ids, vocab = characters()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for window in text_windows(ids, STEPS, length=12):
            optimizer.zero_grad()
            logits = model(window[:, :-1])
            if per_position:
                loss = F.cross_entropy(logits.transpose(1, 2), window[:, 1:])
            else:
                loss = F.cross_entropy(logits, window[:, -1])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_positions_computed_in_forward_are_seen_by_the_shuffle():
    torch.manual_seed(0)
    _, vocab = characters()
    assert ORDER not in _problems(_train_next_character(_OnTheFlyPositions(vocab), True))


def test_a_per_position_encoder_without_positions_is_named():
    torch.manual_seed(0)
    _, vocab = characters()
    mon = _train_next_character(_OnTheFlyPositions(vocab, positions=False), True)
    finding = next(f for f in mon.findings() if f.code == ORDER)
    assert finding.evidence["output"] == "per position"


class _ClsPooled(nn.Module):
    """[CLS] (id 0 here) in front, its output classifies: order-blind without positions."""

    def __init__(self, vocab, dim=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        layer = nn.TransformerEncoderLayer(dim, 4, 64, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        with_cls = torch.cat([torch.zeros_like(ids[:, :1]), ids], dim=1)
        return self.head(self.encoder(self.embed(with_cls))[:, 0])


def test_a_cls_pooled_encoder_without_positions_is_named():
    """The [CLS] stays in front when the inner tokens move, so its summary is compared with
    itself."""
    torch.manual_seed(0)
    _, vocab = characters()
    mon = _train_next_character(_ClsPooled(vocab), False)
    assert ORDER in _problems(mon)


class _PaddedClassifier(nn.Module):
    """Padded lines, a key padding mask, the real tokens' outputs averaged; sinusoidal
    positions computed in forward (no tensor to find: the shuffle decides) or none."""

    def __init__(self, vocab, positions, dim=32):
        super().__init__()
        self.positions = positions
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        layer = nn.TransformerEncoderLayer(dim, 4, 64, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
        self.head = nn.Linear(dim, 2)

    def forward(self, input_ids, attention_mask):
        x = self.embed(input_ids)
        if self.positions:
            x = x + no_positions.sinusoids(input_ids.shape[1], x.shape[-1])
        hidden = self.encoder(x, src_key_padding_mask=attention_mask == 0)
        kept = attention_mask[..., None].float()
        return self.head((hidden * kept).sum(1) / kept.sum(1))


@pytest.mark.parametrize("positions", [False, True])
def test_a_padding_mask_moves_with_its_tokens(positions):
    from benchmarks.real_bugs._common import padded_lines
    torch.manual_seed(0)
    lines, vocab = padded_lines()
    labels = (lines[:, 0] % 2).long()
    model = _PaddedClassifier(vocab, positions)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for step in range(STEPS):
            rows = torch.arange(16 * step, 16 * step + 16) % len(lines)
            batch = lines[rows]
            optimizer.zero_grad()
            logits = model(input_ids=batch, attention_mask=(batch != 0).long())
            loss = F.cross_entropy(logits, labels[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert (ORDER in _problems(mon)) is not positions


def test_a_bag_of_words_model_has_no_attention_and_is_not_judged():
    torch.manual_seed(0)
    _, vocab = characters()
    assert ORDER not in _problems(_train_next_character(_BagOfWords(vocab), False))


# --- ATTENTION_CROSSES_DOCUMENTS -------------------------------------------------------------
def test_the_planted_packed_rows_are_named():
    mon = packed.run(steps=STEPS)
    assert PACKED in _problems(mon)
    evidence = next(f for f in mon.findings() if f.code == PACKED).evidence
    assert evidence["rows_reading_across"] == evidence["packed_rows"] > 0


def test_the_fixed_block_diagonal_mask_is_silent():
    assert PACKED not in _problems(packed.run(fixed=True, steps=STEPS))


def test_restart_columns_reads_position_ids_that_start_again():
    positions = np.array([[0, 1, 2, 0, 1], [0, 1, 2, 3, 4]])
    assert restart_columns(positions).tolist() == [3, -1]
    assert restart_columns(np.array([[0, 1, 2, 3], [0, 1, 2, 3]])) is None   # no restart
    assert restart_columns(np.array([[0, 1, 1, 0], [0, 1, 2, 0]])) is None   # no count
    assert restart_columns(np.array([[1, 0, 1, 2]])) is None                 # no 0 first


@pytest.mark.parametrize("per_document_mask", [False, True])
def test_one_packed_row_with_position_ids_of_one_row(per_document_mask):
    """Packing into a batch of one row (as varlen attention does), position ids (1, T)."""
    torch.manual_seed(0)
    ids, vocab = characters()
    model = packed.PackedCausalLM(vocab + 1, per_document_mask=per_document_mask)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for window in text_windows(ids, STEPS, batch_size=3, length=packed.DOCUMENT - 1):
            row = torch.cat([torch.cat([w, torch.tensor([vocab])]) for w in window])[None]
            positions = torch.arange(packed.DOCUMENT + 1).repeat(3)[None]
            optimizer.zero_grad()
            logits = model(input_ids=row[:, :-1], position_ids=positions[:, :-1])
            loss = F.cross_entropy(logits.transpose(1, 2), row[:, 1:])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert (PACKED in _problems(mon)) is not per_document_mask


def test_a_causal_lm_with_one_document_per_row_is_silent():
    """Continuous position ids (no restart): one stream of text, read across freely."""
    torch.manual_seed(0)
    ids, vocab = characters()
    model = packed.PackedCausalLM(vocab + 1, per_document_mask=False)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for window in text_windows(ids, STEPS, length=packed.DOCUMENT):
            positions = torch.arange(packed.DOCUMENT).expand(len(window), -1)
            optimizer.zero_grad()
            logits = model(input_ids=window[:, :-1], position_ids=positions)
            loss = F.cross_entropy(logits.transpose(1, 2), window[:, 1:])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert not _problems(mon) & {PACKED, ORDER}


class _LossFirst(nn.Module):
    """Returns (loss, logits), the loss first, and will not run in float64 when asked for
    a second opinion: the checks say nothing (no MONITOR_ERROR either)."""

    def __init__(self, vocab, dim=32):
        super().__init__()
        self.inner = _OnTheFlyPositions(vocab, dim, positions=False)

    def forward(self, ids):
        if next(self.parameters()).dtype != torch.float32:
            raise RuntimeError("float32 only")
        logits = self.inner(ids)
        return logits.logsumexp(-1).mean(), logits


def test_a_model_the_private_copy_cannot_run_leaves_no_finding_and_no_error():
    torch.manual_seed(0)
    ids, vocab = characters()
    model = _LossFirst(vocab)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for window in text_windows(ids, STEPS, length=12):
            optimizer.zero_grad()
            _, logits = model(window[:, :-1])
            loss = F.cross_entropy(logits.transpose(1, 2), window[:, 1:])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    codes = {f.code for f in mon.findings()}
    assert ORDER not in codes and "MONITOR_ERROR" not in codes
