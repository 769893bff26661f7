"""Shared pieces of real-bug batch 351 (person and vehicle re-identification): a small
synthetic re-identification set, a P x K identity sampler and the query / gallery read-out.

Each identity is a hidden code; each of its images mixes that code with a camera-and-pose
nuisance (larger than the code) through a fixed random non-linear "renderer" to 64 numbers,
plus pixel noise. The first ``TRAIN_IDS`` identities train; the next ``TEST_IDS``
identities (never seen in training, as in Market-1501's split) are read out: the first
image of each test identity is its query, its other images sit in the gallery with the
other test identities' images. Call these inside a case's ``run`` so the seeds it sets
(and the benchmark's seed shift) reach every draw."""
import numpy as np
import torch
from torch.nn import functional as F

TRAIN_IDS, TEST_IDS, PER_ID = 120, 60, 8
CODE, NUISANCE, CAMERAS = 8, 8, 4


def reid_data(seed=0, extra_ids=0):
    """(x_train, y_train, query_x, query_y, gallery_x, gallery_y) as float32 / int64; with
    ``extra_ids``, also (x_extra, y_extra): ``extra_ids`` further persons (another
    subset, their own ids counted from 0), drawn after everything else."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(CODE, 96)) / np.sqrt(CODE)
    b = rng.normal(size=(NUISANCE, 96)) * 1.5 / np.sqrt(NUISANCE)
    c = rng.normal(size=(96, 64)) / np.sqrt(96)
    camera_offsets = rng.normal(size=(CAMERAS, NUISANCE))
    ids = TRAIN_IDS + TEST_IDS
    codes = rng.normal(size=(ids, CODE))
    labels = np.repeat(np.arange(ids), PER_ID)
    cameras = rng.integers(0, CAMERAS, size=len(labels))
    nuisance = camera_offsets[cameras] + 0.7 * rng.normal(size=(len(labels), NUISANCE))
    x = np.tanh(codes[labels] @ a + nuisance @ b) @ c + 0.15 * rng.normal(size=(len(labels), 64))
    mean, std = x.mean(0), x.std(0)
    x = ((x - mean) / std).astype(np.float32)
    x, y = torch.from_numpy(x), torch.from_numpy(labels)
    train = y < TRAIN_IDS
    first = torch.zeros(len(y), dtype=torch.bool)
    first[::PER_ID] = True
    query, gallery = ~train & first, ~train & ~first
    split = (x[train], y[train], x[query], y[query], x[gallery], y[gallery])
    if not extra_ids:
        return split
    extra_codes = rng.normal(size=(extra_ids, CODE))
    extra_labels = np.repeat(np.arange(extra_ids), PER_ID)
    cameras = rng.integers(0, CAMERAS, size=len(extra_labels))
    nuisance = camera_offsets[cameras] + 0.7 * rng.normal(size=(len(extra_labels), NUISANCE))
    extra = np.tanh(extra_codes[extra_labels] @ a + nuisance @ b) @ c
    extra = extra + 0.15 * rng.normal(size=extra.shape)
    extra = ((extra - mean) / std).astype(np.float32)
    return split + (torch.from_numpy(extra), torch.from_numpy(extra_labels))


def pk_batches(y, p, k, steps, rng):
    """``steps`` batches of row indices: ``p`` random identities with ``k`` random images
    each (the RandomIdentitySampler of batch-hard training), grouped by identity."""
    labels = y.numpy()
    identities = np.unique(labels)
    by_id = [np.flatnonzero(labels == c) for c in identities]
    for _ in range(steps):
        chosen = rng.permutation(len(identities))[:p]
        rows = [rng.choice(by_id[c], k, replace=False) for c in chosen]
        yield torch.from_numpy(np.concatenate(rows))


def retrieval_scores(query, query_y, gallery, gallery_y, distance=None):
    """(rank-1, mAP) of ranking the gallery for every query; ``distance`` (q, g) defaults
    to the Euclidean distance of L2-normalised features (the cosine ranking)."""
    if distance is None:
        distance = torch.cdist(F.normalize(query, dim=1), F.normalize(gallery, dim=1))
    order = distance.argsort(1)
    hits = (gallery_y[order] == query_y[:, None]).float()
    rank1 = float(hits[:, 0].mean())
    cumulative = hits.cumsum(1)
    ranks = torch.arange(1, hits.shape[1] + 1, dtype=torch.float32)
    ap = ((cumulative / ranks) * hits).sum(1) / hits.sum(1)
    return round(rank1, 3), round(float(ap.mean()), 3)
