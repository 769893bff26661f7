"""What the k-fold / hyperparameter-search / repeated-experiment cases of real-bug batch 248
share: a shuffled k-fold split drawn from torch's global generator (so the benchmark's seed
shift moves it), a held-out evaluation, and a plain mini-batch training loop. Each case keeps
its own fold or trial loop, where its bug lives."""
import torch
import torch.nn.functional as F


def kfold(n, folds):
    """(train index, held-out index) of each fold of a shuffled k-fold split of ``n`` rows."""
    parts = torch.randperm(n).chunk(folds)
    return [(torch.cat(parts[:k] + parts[k + 1:]), parts[k]) for k in range(folds)]


def evaluate(model, x, y):
    """(cross-entropy, accuracy) on held-out rows, in eval mode without gradients."""
    model.eval()
    with torch.no_grad():
        logits = model(x)
    model.train()
    return float(F.cross_entropy(logits, y)), float((logits.argmax(1) == y).float().mean())


def train(model, optimizer, x, y, steps, batch_size=64, mon=None, val=None, val_every=25,
          stop=None):
    """``steps`` SGD steps on shuffled mini-batches of (x, y) (orders from torch's global
    generator). With ``val`` = (x, y) the held-out loss is computed every ``val_every`` steps,
    passed to ``mon.step`` and to ``stop(val_loss)``, which ends the run when it returns True.
    Returns the number of steps taken."""
    done = 0
    while done < steps:
        order = torch.randperm(len(x))
        for start in range(0, len(x) - batch_size + 1, batch_size):
            index = order[start:start + batch_size]
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x[index]), y[index])
            loss.backward()
            optimizer.step()
            done += 1
            val_loss = None
            if val is not None and done % val_every == 0:
                val_loss = evaluate(model, *val)[0]
            if mon is not None:
                if val_loss is None:
                    mon.step(loss)
                else:
                    mon.step(loss, val_loss=val_loss)
            if val_loss is not None and stop is not None and stop(val_loss):
                return done
            if done == steps:
                return done
    return done
