"""Shared pieces of the batch-259 cases (hand-written word2vec from first tutorials:
skip-gram and CBOW, full softmax or negative sampling). The corpus, the skip-gram pairs, the
noise distribution and the held-out measure are batch 123's
(benchmarks/real_bugs/_word_embeddings.py: 8 topics of 16 content words, 32 Zipf-frequent
function words; the measure is neighbour precision - the share of each content word's 5
nearest content words (cosine) from its own topic, chance 0.12 - and the topics never reach
the training), here with the share of topic words as a parameter (lowered, the topics are
harder to find). Added: CBOW windows (the words around each position, the centre the
target), a sampler of noise words, and a second corpus (below) that tells words which
APPEAR TOGETHER from words which appear in the SAME CONTEXTS.
"""
import numpy as np
import torch

from benchmarks.real_bugs._word_embeddings import (  # noqa: F401 (re-exported)
    FUNCTION_WORDS, SENTENCE, TOPIC_WORDS, TOPICS, VOCAB, neighbour_precision,
    noise_distribution, skipgram_pairs, zipf)


def sentences(count, rng, topic_share=0.55):
    """batch 123's sentences (``_word_embeddings.sentences``) with the share of topic words
    as a parameter: (count, SENTENCE) int64 ids and each sentence's topic."""
    function_p, topic_p = zipf(FUNCTION_WORDS, 1.0), zipf(TOPIC_WORDS, 0.5)
    topic = rng.integers(TOPICS, size=count)
    from_topic = rng.random((count, SENTENCE)) < topic_share
    content = 1 + FUNCTION_WORDS + topic[:, None] * TOPIC_WORDS + rng.choice(
        TOPIC_WORDS, size=(count, SENTENCE), p=topic_p)
    function = 1 + rng.choice(FUNCTION_WORDS, size=(count, SENTENCE), p=function_p)
    return torch.from_numpy(np.where(from_topic, content, function)), torch.from_numpy(topic)


def cbow_windows(ids, window=2):
    """(contexts (N, 2*window) ids, targets (N,)): every position at least ``window`` words
    from either end of its sentence, with the words on both sides of it."""
    length = ids.shape[1]
    contexts, targets = [], []
    for i in range(window, length - window):
        around = torch.cat([ids[:, i - window:i], ids[:, i + 1:i + window + 1]], dim=1)
        contexts.append(around)
        targets.append(ids[:, i])
    return torch.cat(contexts), torch.cat(targets)


def draw_noise(noise, rows, k):
    """(rows, k) noise-word ids from the unigram^0.75 distribution."""
    return torch.multinomial(noise, rows * k, replacement=True).view(rows, k)


# A second corpus, for the difference between words that APPEAR TOGETHER and words that
# appear in the SAME CONTEXTS: GROUPS groups of SYNONYMS interchangeable words (only one
# of them in any sentence, so they never meet) and CUES cue words of their own (several
# per sentence), and the 32 Zipf function words of batch 123's corpus. A good word2vec
# puts a word's synonyms nearest to it (they share every context); a model that learns
# co-occurrence instead puts its cue words there. The measure: for each synonym word, the
# share of its SYNONYMS - 1 nearest words (cosine, over the whole vocabulary) that are its
# synonyms (chance 3 / 192).
GROUPS, SYNONYMS, CUES = 16, 4, 6
SYN_VOCAB = 1 + FUNCTION_WORDS + GROUPS * (SYNONYMS + CUES)
SYN_FIRST = 1 + FUNCTION_WORDS                    # ids of group g's synonyms, then cues
CUE_SHARE = 0.5


def synonym_sentences(count, rng):
    """(count, SENTENCE) ids: each sentence one group's synonym (one of SYNONYMS, at a
    random position), each other word one of the group's cue words with probability
    CUE_SHARE, else a function word."""
    function_p = zipf(FUNCTION_WORDS, 1.0)
    group = rng.integers(GROUPS, size=count)
    base = SYN_FIRST + group[:, None] * (SYNONYMS + CUES)
    cue = base + SYNONYMS + rng.integers(CUES, size=(count, SENTENCE))
    function = 1 + rng.choice(FUNCTION_WORDS, size=(count, SENTENCE), p=function_p)
    ids = np.where(rng.random((count, SENTENCE)) < CUE_SHARE, cue, function)
    where = rng.integers(SENTENCE, size=count)
    ids[np.arange(count), where] = base[:, 0] + rng.integers(SYNONYMS, size=count)
    return torch.from_numpy(ids)


def synonym_precision(vectors):
    """Share of each synonym word's SYNONYMS - 1 nearest words (cosine, all words but the
    unknown id) that are its synonyms - the held-out measure (the groups never reach the
    training)."""
    with torch.no_grad():
        v = torch.nn.functional.normalize(vectors[1:].float(), dim=1)
        similarity = v @ v.T
        similarity.fill_diagonal_(-2.0)
        ids = torch.arange(1, SYN_VOCAB)
        offset = ids - SYN_FIRST
        is_syn = (offset >= 0) & (offset % (SYNONYMS + CUES) < SYNONYMS)
        group = torch.where(offset >= 0, offset // (SYNONYMS + CUES), -1)
        rows = is_syn.nonzero().squeeze(1)
        nearest = similarity[rows].topk(SYNONYMS - 1, dim=1).indices
        hit = is_syn[nearest] & (group[nearest] == group[rows][:, None])
        return round(hit.float().mean().item(), 3)
