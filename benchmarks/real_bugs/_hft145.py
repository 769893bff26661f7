"""Pieces the batch-145 cases share: each trains through the Hugging Face ``Trainer`` (CPU,
quiet, no downloads) with ``NNDebugCallback`` watching, on rows given as plain lists of dicts.

Dropped from the batch (no harm at this scale): "[Trainer] As gradient_accumulation_steps
increases, the loss also increases" - https://github.com/huggingface/transformers/issues/37766
(a ``forward`` with ``**kwargs`` makes the Trainer take the model for one that divides its
loss by ``num_items_in_batch``, so a batch-mean loss is not divided by the accumulation
steps). A digits MLP, 8 micro-batches of 8 per step, 150 steps: held-out accuracy 0.897
for both with the Trainer's AdamW (scale-invariant), and 0.927 for the bug against 0.894
with SGD 0.1 (the 8x gradient only acts as a larger rate under clipping at norm 1)."""
import shutil
import tempfile

import torch


def training_arguments(steps, folder, **overrides):
    """The quiet TrainingArguments every case starts from (``overrides`` win)."""
    import transformers
    settings = dict(output_dir=folder, max_steps=steps, report_to=[], save_strategy="no",
                    logging_strategy="no", eval_strategy="no", disable_tqdm=True, use_cpu=True,
                    seed=0, data_seed=0, per_device_train_batch_size=32, learning_rate=1e-3,
                    lr_scheduler_type="constant", weight_decay=0.0)
    settings.update(overrides)
    return transformers.TrainingArguments(**settings)


def train(model, steps, rows, watch, trainer_class=None, eval_rows=None, arguments=None,
          **trainer_kwargs):
    """Train ``model`` for ``steps`` optimizer steps with the Trainer; (trainer, callback).
    ``arguments``: overrides of :func:`training_arguments`. The output folder is removed
    after training."""
    import transformers

    from nndebug.integrations.transformers import NNDebugCallback
    folder = tempfile.mkdtemp(prefix="hft145_")
    try:
        callback = NNDebugCallback(verbose=False, **watch)
        trainer = (trainer_class or transformers.Trainer)(
            model=model, args=training_arguments(steps, folder, **(arguments or {})),
            train_dataset=rows, eval_dataset=eval_rows, callbacks=[callback], **trainer_kwargs)
        trainer.train()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return trainer, callback


def rows_of(**columns):
    """Tensors of equal length along axis 0 as a list of dicts, one per row."""
    names = list(columns)
    count = len(columns[names[0]])
    return [{name: columns[name][i] for name in names} for i in range(count)]


@torch.no_grad()
def accuracy(logits, labels):
    return (logits.argmax(-1) == labels).float().mean().item()
