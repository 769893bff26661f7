"""The dependency probe that watch runs reads the targets with the loss's own ``ignore_index``.

A masked-LM's targets are the few masked tokens of each row, padded to a fixed width with
the pad id the loss skips (``CrossEntropyLoss(ignore_index=0)``). Read with torch's default
-100 instead, the pad slots were targets: zeros that matched a segment-id input's zeros
three positions earlier, at 100% of the compared positions - LABELS_MISALIGNED on the fixed
twin of real-bug batch 243 (a BERT written by hand from a tutorial). Now watch passes the
``ignore_index`` of the loss call that received the targets; the twin is silent, and a
next-token model whose padded targets really are shifted the wrong way is still named."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import hand_built_bert_pretrained_at_adam_1e3 as bert  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PAD, VOCAB, LENGTH = 0, 24, 16


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def test_the_masked_lm_twin_padded_with_its_ignore_index_is_silent():
    mon = bert.run(fixed=True, steps=40)
    assert "LABELS_MISALIGNED" not in _codes(mon)


class TinyLanguageModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 32)
        self.rnn = nn.GRU(32, 32, batch_first=True)
        self.head = nn.Linear(32, VOCAB)

    def forward(self, ids):
        return self.head(self.rnn(self.embed(ids))[0])


def _padded_rows(n):
    """Rows of random tokens 1..VOCAB-1 of random length, padded at the end with PAD."""
    ids = torch.randint(1, VOCAB, (n, LENGTH))
    lengths = torch.randint(LENGTH // 2, LENGTH + 1, (n,))
    ids[torch.arange(LENGTH)[None, :] >= lengths[:, None]] = PAD
    return ids


def test_targets_shifted_the_wrong_way_under_an_ignore_index_are_still_named():
    torch.manual_seed(0)
    model = TinyLanguageModel()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss(ignore_index=PAD)
    with nd.watch(model, optimizer) as mon:
        for _ in range(40):
            ids = _padded_rows(32)
            # the bug: position t is taught the token before it, not the one after
            targets = torch.cat([torch.full((32, 1), PAD), ids[:, :-1]], dim=1)
            optimizer.zero_grad()
            loss = loss_fn(model(ids).transpose(1, 2), targets)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert "LABELS_MISALIGNED" in _codes(mon)
