"""Real-bug batch 89 (CTC and sequence-labelling losses): CTC_LABEL_BEYOND_CLASSES,
CTC_ALIGNMENTS_IMPOSSIBLE, and PADDING_NOT_MASKED widened to a tagger's padded tags (tags
that repeat inside the rows, the padding in the rows' tails). The planted cases, variants
of them, their fixed twins and the healthy look-alikes a careless rule would flag."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

from benchmarks.real_bugs import ctc_head_one_class_short_of_labels as short_head  # noqa: E402
from benchmarks.real_bugs import ctc_zero_infinity_hides_too_few_frames as few_frames  # noqa: E402
from benchmarks.real_bugs import tagger_padded_tags_counted_in_loss as padded_tags  # noqa: E402
from benchmarks.real_bugs._common import classification  # noqa: E402
from benchmarks.real_bugs.ctc_loss_on_raw_logits import FrameRecogniser, lines  # noqa: E402
from nndebug.monitor.ctc_alignments import alignment_counts  # noqa: E402
from nndebug.monitor.target_ids import _in_tails, summarize  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _ctc_run(classes, labels_of, steps=30, lengths_of=None, functional=False,
             zero_infinity=False, flat=False):
    """The digit-line recogniser of ctc_loss_on_raw_logits, log-softmaxed, with the labels
    and input lengths a variant gives."""
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    model = FrameRecogniser(labels=classes)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    ctc = nn.CTCLoss(blank=0, zero_infinity=zero_infinity)
    with nd.watch(model, optimizer) as mon:
        for frames, shifted in lines(x, y, steps):
            labels = labels_of(shifted)
            optimizer.zero_grad()
            scores = model(frames).log_softmax(dim=2)
            frame_count = torch.full((len(labels),), frames.shape[0], dtype=torch.long)
            lengths = frame_count if lengths_of is None else lengths_of(frame_count)
            counts = torch.full((len(labels),), labels.shape[1], dtype=torch.long)
            targets = labels.reshape(-1) if flat else labels
            if functional:
                loss = F.ctc_loss(scores, targets, lengths, counts, zero_infinity=zero_infinity)
            else:
                loss = ctc(scores, targets, lengths, counts)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


# --- CTC_LABEL_BEYOND_CLASSES ----------------------------------------------------------

def test_a_head_one_class_short_is_named():
    assert "CTC_LABEL_BEYOND_CLASSES" in _problems(short_head.run(steps=40))


def test_the_right_sized_head_is_silent():
    assert "CTC_LABEL_BEYOND_CLASSES" not in _problems(short_head.run(fixed=True, steps=40))


def test_concatenated_targets_through_f_ctc_loss_are_read_too():
    mon = _ctc_run(10, lambda s: s, steps=8, functional=True, flat=True)
    found = [f for f in mon.findings() if f.code == "CTC_LABEL_BEYOND_CLASSES"]
    assert found and found[0].severity == "error"
    assert 0 < found[0].evidence["labels_beyond"] < found[0].evidence["labels"]


def test_the_blank_as_the_last_class_is_no_label_beyond():
    # labels 0..9 with blank = 10 would be the other convention; here 1..10 with 11 classes
    mon = _ctc_run(11, lambda s: s, steps=8)
    assert "CTC_LABEL_BEYOND_CLASSES" not in _problems(mon)
    assert all(row[6] == 0 for row in mon.run.observed.ctc_alignments)


# --- CTC_ALIGNMENTS_IMPOSSIBLE ---------------------------------------------------------

def test_too_few_frames_hidden_by_zero_infinity_are_named():
    mon = few_frames.run(steps=40)
    found = [f for f in mon.findings() if f.code == "CTC_ALIGNMENTS_IMPOSSIBLE"]
    assert found and found[0].severity == "warning" and found[0].evidence["zero_infinity"]
    assert found[0].evidence["share"] > 0.3


def test_the_shorter_stride_twin_is_silent():
    assert "CTC_ALIGNMENTS_IMPOSSIBLE" not in _problems(few_frames.run(fixed=True, steps=40))


def test_input_lengths_given_too_short_are_named():
    # lengths of two frames for three labels (the target lengths confused with the frames)
    mon = _ctc_run(11, lambda s: s, steps=8, zero_infinity=True, functional=True,
                   lengths_of=lambda n: torch.full_like(n, 2))
    assert "CTC_ALIGNMENTS_IMPOSSIBLE" in _problems(mon)


def test_a_few_bad_lines_under_zero_infinity_are_left_alone():
    # one line in 32 with too few frames: what zero_infinity is there for
    def lengths(n):
        n = n.clone()
        n[0] = 2
        return n
    mon = _ctc_run(11, lambda s: s, steps=8, zero_infinity=True, lengths_of=lengths)
    assert "CTC_ALIGNMENTS_IMPOSSIBLE" not in _problems(mon)
    rows = mon.run.observed.ctc_alignments
    assert rows and all(row[4] == 1 for row in rows)


def test_repeated_labels_need_a_blank_between_them():
    targets = np.array([[3, 3, 4], [3, 4, 5], [2, 2, 2]])
    # 3 frames: [3, 3, 4] needs 4, [3, 4, 5] needs 3, [2, 2, 2] needs 5
    assert alignment_counts(targets, [3, 3, 3], [3, 3, 3], (3, 3, 11)) == (3, 2, 9, 0)
    assert alignment_counts(targets, [5, 5, 5], [3, 3, 3], (5, 3, 11)) == (3, 0, 9, 0)
    flat = targets.reshape(-1)
    assert alignment_counts(flat, [5, 5, 5], [3, 3, 3], (5, 3, 4)) == (3, 0, 9, 3)   # 4, 4, 5


# --- PADDING_NOT_MASKED for a tagger's padded tags -------------------------------------

def test_a_taggers_padded_tags_in_the_loss_are_named():
    assert "PADDING_NOT_MASKED" in _problems(padded_tags.run(steps=40))


def test_the_tagger_twin_with_ignore_index_is_silent():
    assert not _problems(padded_tags.run(fixed=True, steps=40))


def test_a_frequent_tag_inside_unpadded_rows_is_not_padding():
    # the same tagger on fixed-length windows cut from the text (no padding at all): its
    # most frequent tag (I-LOW) repeats inside the rows and sits in runs
    import nndebug as nd
    torch.manual_seed(0)
    ids, tags, vocab = padded_tags.tagged_lines()
    real = tags[:, :24] != 0
    keep = real.all(1)
    ids, tags = ids[keep, :24], tags[keep, :24]
    model = padded_tags.Tagger(vocab)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    g = torch.Generator().manual_seed(1)
    with nd.watch(model, optimizer) as mon:
        for _ in range(40):
            rows = torch.randint(0, len(ids), (32,), generator=g)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(ids[rows]).transpose(1, 2), tags[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert "PADDING_NOT_MASKED" not in _problems(mon)
    calls = [c for c in mon.run.observed.loss_calls if c.target_mode_in_tails is not None]
    assert calls and max(c.target_mode_in_tails for c in calls) < 0.5


def test_tails_count_runs_at_either_end_of_a_row():
    grid = np.array([[1, 2, 0, 0], [0, 0, 3, 4], [1, 0, 2, 3], [0, 0, 0, 0]])
    assert _in_tails(grid == 0) == pytest.approx(8 / 9)
    assert summarize(grid.reshape(-1), grid.shape)["target_mode_in_tails"] == \
        pytest.approx(8 / 9)
    assert "target_mode_in_tails" not in summarize(grid.reshape(-1))   # no row shape known


# --- the rows -------------------------------------------------------------------------

def test_the_ctc_rows_are_saved_and_loaded(tmp_path):
    import nndebug as nd
    mon = few_frames.run(steps=6)
    path = tmp_path / "run.nddebug"
    mon.save(path)
    loaded = nd.load_run(path).run.observed.ctc_alignments
    assert [list(r) for r in loaded] == [list(r) for r in mon.run.observed.ctc_alignments]
    assert loaded and all(isinstance(r[2], bool) for r in loaded)
