"""Token targets equal to the inputs (probes/dependencies/copy_path.py): a language model
scored on its own unshifted tokens is still told TARGETS_IN_INPUTS, while a teacher-forced
sequence autoencoder, which rebuilds its input from a code, is not (real-bug batch 320,
gru_autoencoder_hidden_viewed_across_batch's twin). Saying ``causal=True`` settles the
task: the copy is named whatever the model reads."""
import pytest

torch = pytest.importorskip("torch")

import nndebug as nd  # noqa: E402

VOCAB = 12


class Autoencoder(torch.nn.Module):
    """A GRU encoder's last state as the code; a GRU decoder fed the previous tokens."""

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(VOCAB, 16)
        self.encoder = torch.nn.GRU(16, 24, batch_first=True)
        self.decoder = torch.nn.GRU(16, 24, batch_first=True)
        self.out = torch.nn.Linear(24, VOCAB)

    def forward(self, src):
        _, code = self.encoder(self.emb(src))
        start = torch.ones_like(src[:, :1])
        decoded, _ = self.decoder(self.emb(torch.cat([start, src[:, :-1]], 1)), code)
        return self.out(decoded)


class LanguageModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(VOCAB, 16)
        self.rnn = torch.nn.LSTM(16, 24, batch_first=True)
        self.out = torch.nn.Linear(24, VOCAB)

    def forward(self, ids):
        return self.out(self.rnn(self.emb(ids))[0])


def tokens():
    g = torch.Generator().manual_seed(0)
    return torch.randint(2, VOCAB, (32, 8), generator=g)


def copies(model, **told):
    torch.manual_seed(0)
    ids = tokens()
    result = nd.check_dependencies(model, ids, targets=ids, **told)
    return [f for f in result.findings if f.code == "TARGETS_IN_INPUTS"], result


def test_a_language_model_on_unshifted_labels_is_named():
    found, result = copies(LanguageModel())
    assert found, result.findings


def test_an_autoencoder_rebuilding_its_input_is_not():
    found, result = copies(Autoencoder())
    assert not found, result.findings
    assert any("reconstruction" in note for note in result.notes)


def test_saying_the_task_is_causal_keeps_the_copy():
    found, result = copies(Autoencoder(), causal=True)
    assert found, result.findings
