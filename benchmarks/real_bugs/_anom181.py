"""Shared pieces of real-bug batch 181 (anomaly detection written by hand): a small
tabular one-class data set whose columns carry the offsets and scales raw sensor or log
features have, and the digits' one-class split re-exported. Kept small: each case shows its
own bug."""
import numpy as np
import torch

from benchmarks.real_bugs._one_class import auroc, index_batches, one_class_digits  # noqa: F401


def tabular_one_class(seed=0, n_train=600, n_normal_test=200, n_anomaly_test=200,
                      features=16, rank=4, anomaly_size=1.5):
    """(train, test_x, test_is_anomaly) float32: normal rows lie near a ``rank``-dimensional
    linear manifold, each column with its own offset (some near zero, some far from it) and
    scale; anomalies leave the manifold (a random unit direction times ``anomaly_size``,
    in each column's scale, added to a normal point). Test rows come normals first."""
    rng = np.random.default_rng(seed)
    offsets = rng.uniform(-4, 4, features)
    offsets[: features // 4] = rng.uniform(0.05, 0.3, features // 4)   # columns near zero
    scales = rng.uniform(0.5, 3.0, features)
    mixing = rng.normal(size=(rank, features)) / np.sqrt(rank)

    def normal(n):
        z = rng.normal(size=(n, rank))
        return (z @ mixing + 0.1 * rng.normal(size=(n, features))) * scales + offsets

    def anomalous(n):
        shift = rng.normal(size=(n, features))
        shift /= np.linalg.norm(shift, axis=1, keepdims=True)
        return normal(n) + anomaly_size * shift * scales

    train = normal(n_train)
    test = np.concatenate([normal(n_normal_test), anomalous(n_anomaly_test)])
    is_anomaly = np.concatenate([np.zeros(n_normal_test), np.ones(n_anomaly_test)])
    return tuple(torch.from_numpy(a.astype(np.float32)) for a in (train, test, is_anomaly))
