"""Targets written into the next input (probes/dependencies/encoded_next.py): a knowledge
tracer's next-answer targets are a function of the next interaction id, so the future-leak
probe runs on it, names a tracer whose attention mask does nothing, and stays quiet on the
same tracer with its mask; a tagger whose tags follow from their own token, and targets
only correlated with the next input, do not make the task causal (real-bug batch 321)."""
import numpy as np
import pytest

from nndebug.probes.dependencies.encoded_next import targets_in_next_inputs

torch = pytest.importorskip("torch")

import nndebug as nd  # noqa: E402

SKILLS = 10


def students(n=64, length=20, seed=0):
    """(interaction ids (n, length - 1), next skills, next answers): id = skill + S * correct."""
    rng = np.random.default_rng(seed)
    skills = rng.integers(0, SKILLS, size=(n, length))
    correct = (rng.random((n, length)) < 0.3 + 0.05 * skills).astype(np.int64)
    ids = skills + SKILLS * correct
    return ids[:, :-1], skills[:, 1:], correct[:, 1:]


def test_next_answers_are_read_from_the_next_interaction():
    ids, _, answers = students()
    assert targets_in_next_inputs(ids, answers[:, :-1].astype(np.float32))
    assert targets_in_next_inputs(ids, answers)


def test_tags_of_their_own_token_and_correlated_targets_are_not():
    rng = np.random.default_rng(1)
    tokens = rng.integers(0, 30, size=(64, 20))
    assert not targets_in_next_inputs(tokens, tokens % 3)          # a lexicon tagger
    ids, _, answers = students()
    noisy = np.where(rng.random(answers.shape) < 0.2, 1 - answers, answers)
    assert not targets_in_next_inputs(ids, noisy)                  # correlated, not written
    assert not targets_in_next_inputs(ids, np.zeros_like(answers))  # a constant target
    assert not targets_in_next_inputs(ids.astype(np.float32), answers)   # float features


class Tracer(torch.nn.Module):
    """One attention layer over interaction embeddings, queried by the next skill."""

    def __init__(self, mask_kept):
        super().__init__()
        self.mask_kept = mask_kept
        self.interactions = torch.nn.Embedding(2 * SKILLS, 16)
        self.skills = torch.nn.Embedding(SKILLS, 16)
        self.out = torch.nn.Linear(32, 1)

    def forward(self, ids, next_skills):
        keys = self.interactions(ids)
        queries = self.skills(next_skills)
        scores = queries @ keys.transpose(1, 2) / 4.0
        future = torch.triu(torch.ones(ids.shape[1], ids.shape[1], dtype=torch.bool), 1)
        if self.mask_kept:
            scores = scores.masked_fill(future, -1e9)
        else:
            scores.masked_fill(future, -1e9)       # the result thrown away
        read = scores.softmax(-1) @ keys
        return self.out(torch.cat([read, queries], -1)).squeeze(-1)


@pytest.mark.parametrize("mask_kept", [False, True])
def test_the_future_leak_probe_runs_on_a_tracer(mask_kept):
    torch.manual_seed(0)
    ids, skills, answers = (torch.as_tensor(a) for a in students())
    result = nd.check_dependencies(Tracer(mask_kept), (ids, skills),
                                   targets=answers.float())
    leaks = [f for f in result.findings if f.code == "FUTURE_LEAK"]
    assert bool(leaks) is (not mask_kept), result.findings
