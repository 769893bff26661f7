"""Pieces the batch-145 cases share: each trains through the Hugging Face ``Trainer`` (CPU,
quiet, no downloads) with ``NNDebugCallback`` watching, on rows given as plain lists of dicts."""
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
