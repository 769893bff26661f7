"""Synthetic tokenised text for real-bug batch 164 (text classification and token tagging).

A vocabulary of 48 words in four topics of 10 words each plus 8 filler words. A sentence
draws its words from one topic (its class) mixed with fillers; lengths vary, so a batch
is padded (id 0). For tagging, every word is split into 1 to 3 subword pieces (ids of its
own, so the first piece names the word) and a word's tag is its topic (0-3) or 4 for a
filler. Everything comes from ``np.random.default_rng(seed)`` (the benchmark's seed shift
moves it).
"""
import numpy as np
import torch

TOPICS, PER_TOPIC, FILLERS = 4, 10, 8
WORDS = TOPICS * PER_TOPIC + FILLERS           # word ids 1..WORDS (0 is padding)
FILLER_TAG = TOPICS
PAD = 0


def word_topic(word):
    """The tag of word id ``word`` (1-based): its topic, or FILLER_TAG."""
    index = word - 1
    return index // PER_TOPIC if index < TOPICS * PER_TOPIC else FILLER_TAG


def sentences(n, rng, min_len=4, max_len=40, topical=0.5):
    """``n`` sentences as lists of word ids and their classes (the topic most words
    come from; the rest are fillers, and one word in ten from another topic)."""
    texts, labels = [], []
    for _ in range(n):
        topic = int(rng.integers(TOPICS))
        length = int(rng.integers(min_len, max_len + 1))
        words = []
        for _ in range(length):
            draw = rng.random()
            if draw < topical:
                words.append(1 + topic * PER_TOPIC + int(rng.integers(PER_TOPIC)))
            elif draw < topical + 0.1:
                other = int(rng.integers(TOPICS))
                words.append(1 + other * PER_TOPIC + int(rng.integers(PER_TOPIC)))
            else:
                words.append(1 + TOPICS * PER_TOPIC + int(rng.integers(FILLERS)))
        texts.append(words)
        labels.append(topic)
    return texts, torch.tensor(labels)


def pad(texts, length=None):
    """(N, length) int64 ids padded with PAD at the end, and the true lengths."""
    length = max(len(t) for t in texts) if length is None else length
    ids = torch.full((len(texts), length), PAD, dtype=torch.int64)
    for row, words in enumerate(texts):
        ids[row, :len(words)] = torch.tensor(words[:length])
    return ids, torch.tensor([min(len(t), length) for t in texts])


def piece_table(rng):
    """Each word's subword pieces: a list, per word id, of 1-3 piece ids (1-based, unique
    to the word), and the number of piece ids counting padding."""
    table, next_id = [[]], 1
    for _ in range(WORDS):
        count = int(rng.choice([1, 2, 3], p=[0.4, 0.35, 0.25]))
        table.append(list(range(next_id, next_id + count)))
        next_id += count
    return table, next_id


def tokenise(words, table):
    """Pieces of a word-id sentence and, for each piece, the index of its word."""
    pieces, word_index = [], []
    for position, word in enumerate(words):
        pieces.extend(table[word])
        word_index.extend([position] * len(table[word]))
    return pieces, word_index


def topic_sentence(topic, length, rng, topical=0.6):
    """One sentence of ``length`` words: topic words with probability ``topical``, else
    fillers."""
    words = []
    for _ in range(length):
        if rng.random() < topical:
            words.append(1 + topic * PER_TOPIC + int(rng.integers(PER_TOPIC)))
        else:
            words.append(1 + TOPICS * PER_TOPIC + int(rng.integers(FILLERS)))
    return words
