"""The Lightning and Hugging Face Trainer callbacks: silent on healthy training, a planted bug
found, training bit-for-bit unchanged, one monitor step per optimizer step, no hook left."""
import copy
import warnings

import pytest

torch = pytest.importorskip("torch")


def _data(n=96, features=6, seed=0):
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(n, features, generator=generator)
    y = (x[:, 0] - x[:, 1] > 0).long()
    return x, y


def _hooks_on(model):
    return sum(len(m._forward_hooks) + len(m._forward_pre_hooks) + len(m._backward_hooks)
               for m in model.modules())


# --- Lightning ------------------------------------------------------------------------------
pl = pytest.importorskip("lightning.pytorch")


class TinyClassifier(pl.LightningModule):
    def __init__(self, lr=0.05, optimise_only_first_layer=False):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
        self.lr, self.only_first = lr, optimise_only_first_layer

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.cross_entropy(self.net(x), y)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_loss", torch.nn.functional.cross_entropy(self.net(x), y))

    def configure_optimizers(self):
        params = self.net[0].parameters() if self.only_first else self.parameters()
        return torch.optim.SGD(params, lr=self.lr, momentum=0.9)


def _fit_lightning(module, callbacks, epochs=6, accumulate=1, validate=False):
    x, y = _data()
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=16,
                                         shuffle=True, generator=torch.Generator().manual_seed(1))
    val = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x[:32], y[:32]), batch_size=32)
    trainer = pl.Trainer(max_epochs=epochs, accelerator="cpu", devices=1, logger=False,
                         enable_checkpointing=False, enable_progress_bar=False,
                         enable_model_summary=False, callbacks=callbacks,
                         accumulate_grad_batches=accumulate, num_sanity_val_steps=0,
                         deterministic=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trainer.fit(module, loader, val if validate else None)
    return trainer


def test_lightning_healthy_run_is_silent_and_training_unchanged(capsys):
    from nndebug.integrations.lightning import NNDebugCallback
    torch.manual_seed(0)
    plain = TinyClassifier()
    watched = copy.deepcopy(plain)
    torch.manual_seed(5)
    _fit_lightning(plain, [])
    callback = NNDebugCallback()
    torch.manual_seed(5)
    trainer = _fit_lightning(watched, [callback], validate=True)
    for key, value in plain.state_dict().items():
        assert torch.equal(value, watched.state_dict()[key]), f"{key} differs with the callback"
    assert callback.monitor.closed and _hooks_on(watched) == 0
    assert callback.monitor.run.n_steps == trainer.global_step == 36
    assert len(callback.monitor.run.val_losses) >= 1, "validation loss was not passed on"
    bad = [f.code for f in callback.monitor.findings() if f.severity != "info"]
    assert not bad, bad
    assert "no problems found" in capsys.readouterr().out


def test_lightning_finds_parameters_the_optimizer_does_not_hold(capsys):
    from nndebug.integrations.lightning import NNDebugCallback
    torch.manual_seed(0)
    callback = NNDebugCallback()
    _fit_lightning(TinyClassifier(optimise_only_first_layer=True), [callback], epochs=3)
    codes = {f.code for f in callback.monitor.findings() if f.severity != "info"}
    assert "OPTIMIZER_MISSING_PARAMS" in codes, codes
    assert "OPTIMIZER_MISSING_PARAMS" in capsys.readouterr().out


def test_lightning_accumulation_steps_once_per_optimizer_step():
    from nndebug.integrations.lightning import NNDebugCallback
    torch.manual_seed(0)
    callback = NNDebugCallback(overhead=None)
    trainer = _fit_lightning(TinyClassifier(), [callback], epochs=2, accumulate=3)
    assert callback.monitor.run.n_steps == trainer.global_step == 4
    bad = [f.code for f in callback.monitor.findings() if f.severity != "info"]
    assert "GRADIENTS_ACCUMULATING" not in bad, bad


def test_lightning_loss_calls_and_graph_are_read_under_automatic_optimisation():
    """Lightning runs ``training_step`` inside ``optimizer.step(closure)`` (real-bug batch
    144): the loss function is called after the optimizer's step pre-hook, and the loss
    Lightning hands back is detached. The monitor still sees the loss call, and the loss it
    steps with carries its graph."""
    from nndebug.integrations.lightning import NNDebugCallback
    torch.manual_seed(0)
    callback = NNDebugCallback(verbose=False)
    _fit_lightning(TinyClassifier(), [callback], epochs=2)
    calls = callback.monitor.run.observed.loss_calls
    assert calls and all(call.loss == "cross_entropy" for call in calls)
    assert len(calls) == len(callback.monitor.run.records)


class _LogsButReturnsNothing(TinyClassifier):
    """``training_step`` logs its loss and returns nothing (the ``return loss`` forgotten,
    real-bug batch 148's helper found such runs unwatched): Lightning backpropagates nothing,
    the optimizer steps on no gradient, the model never trains, the logged loss prints on."""

    def __init__(self, returns):
        super().__init__()
        self.returns = returns

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = torch.nn.functional.cross_entropy(self.net(x), y)
        self.log("train_loss", loss)
        return loss if self.returns else None


def test_lightning_training_step_returning_nothing_is_named():
    from nndebug.integrations.lightning import NNDebugCallback
    torch.manual_seed(0)
    callback = NNDebugCallback(verbose=False)
    _fit_lightning(_LogsButReturnsNothing(returns=False), [callback], epochs=3)
    assert callback.monitor.run.n_steps == 18        # each batch, with its logged loss
    codes = {f.code for f in callback.monitor.findings() if f.severity != "info"}
    assert codes & {"NO_GRADIENT", "NO_OPTIMIZER_STEP", "PARAMS_NOT_UPDATING"}, codes
    torch.manual_seed(0)
    healthy = NNDebugCallback(verbose=False)
    _fit_lightning(_LogsButReturnsNothing(returns=True), [healthy], epochs=3)
    assert not [f.code for f in healthy.monitor.findings() if f.severity != "info"]


def _fit_sorted(shuffle):
    """Two well-separated classes stored sorted by class, read in order or shuffled."""
    from nndebug.integrations.lightning import NNDebugCallback
    torch.manual_seed(0)
    x, y = _data(n=192)
    order = torch.argsort(y, stable=True)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x[order], y[order]),
                                         batch_size=16, shuffle=shuffle,
                                         generator=torch.Generator().manual_seed(1))
    callback = NNDebugCallback(verbose=False)
    trainer = pl.Trainer(max_epochs=4, accelerator="cpu", devices=1, logger=False,
                         enable_checkpointing=False, enable_progress_bar=False,
                         enable_model_summary=False, callbacks=[callback])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trainer.fit(TinyClassifier(), loader)
    return {f.code for f in callback.monitor.findings() if f.severity != "info"}


def test_lightning_batches_of_one_class_found_from_the_loss_calls():
    assert "BATCHES_OF_ONE_CLASS" in _fit_sorted(shuffle=False)
    assert "BATCHES_OF_ONE_CLASS" not in _fit_sorted(shuffle=True)


# --- Hugging Face Trainer -----------------------------------------------------------------
transformers = pytest.importorskip("transformers")


class TinyHFModel(torch.nn.Module):
    """Any torch module whose forward returns ``{"loss", "logits"}`` trains in the Trainer."""

    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.Tanh(), torch.nn.Linear(16, 2))

    def forward(self, x, labels=None):
        logits = self.net(x)
        out = {"logits": logits}
        if labels is not None:
            out["loss"] = torch.nn.functional.cross_entropy(logits, labels)
        return out


class _Rows(torch.utils.data.Dataset):
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return {"x": self.x[i], "labels": self.y[i]}


def _fit_hf(model, callbacks, tmp_path, lr=0.05, accumulate=1, evaluate=False):
    x, y = _data()
    args = transformers.TrainingArguments(
        output_dir=str(tmp_path), per_device_train_batch_size=16, num_train_epochs=4,
        learning_rate=lr, lr_scheduler_type="constant", optim="sgd", weight_decay=0.0,
        gradient_accumulation_steps=accumulate, report_to=[], save_strategy="no",
        logging_strategy="no", eval_strategy="epoch" if evaluate else "no",
        disable_tqdm=True, use_cpu=True, seed=3, data_seed=3, max_grad_norm=0.0,
        dataloader_num_workers=0)
    trainer = transformers.Trainer(model=model, args=args, train_dataset=_Rows(x, y),
                                   eval_dataset=_Rows(x[:32], y[:32]) if evaluate else None,
                                   callbacks=callbacks)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trainer.train()
    return trainer


def test_hf_healthy_run_is_silent_and_training_unchanged(tmp_path, capsys):
    from nndebug.integrations.transformers import NNDebugCallback
    torch.manual_seed(0)
    plain = TinyHFModel()
    watched = copy.deepcopy(plain)
    _fit_hf(plain, [], tmp_path / "plain")
    callback = NNDebugCallback()
    trainer = _fit_hf(watched, [callback], tmp_path / "watched", evaluate=True)
    for key, value in plain.state_dict().items():
        assert torch.equal(value, watched.state_dict()[key]), f"{key} differs with the callback"
    assert callback.monitor.closed and _hooks_on(watched) == 0
    assert callback.monitor.run.n_steps == trainer.state.global_step == 24
    assert len(callback.monitor.run.val_losses) >= 1
    bad = [f.code for f in callback.monitor.findings() if f.severity != "info"]
    assert not bad, bad
    assert "no problems found" in capsys.readouterr().out
    assert any("nndebug/warnings" in entry for entry in trainer.state.log_history)


def test_hf_finds_a_learning_rate_that_blows_up(tmp_path):
    from nndebug.integrations.transformers import NNDebugCallback
    torch.manual_seed(0)
    callback = NNDebugCallback(verbose=False)
    _fit_hf(TinyHFModel(), [callback], tmp_path, lr=1e4)
    codes = {f.code for f in callback.monitor.findings() if f.severity != "info"}
    assert codes & {"LR_TOO_HIGH", "NAN_LOSS", "LOSS_DIVERGING", "EXPLODING_GRADIENTS"}, codes


class _LossInTrainer(transformers.Trainer):
    """A Trainer that computes the loss itself: the model returns logits only (real-bug
    batch 145: such runs were not watched at all)."""

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        loss = torch.nn.functional.cross_entropy(outputs["logits"], labels)
        return (loss, outputs) if return_outputs else loss


def test_hf_loss_computed_by_the_trainer_is_watched(tmp_path, monkeypatch):
    from accelerate import Accelerator
    from nndebug.integrations.transformers import NNDebugCallback
    original = Accelerator.backward
    monkeypatch.setattr(transformers, "Trainer", _LossInTrainer)
    torch.manual_seed(0)
    callback = NNDebugCallback(verbose=False)
    trainer = _fit_hf(TinyHFModel(), [callback], tmp_path, lr=1e4)
    assert callback.monitor.run.n_steps == trainer.state.global_step == 24
    assert callback.monitor.run.records and callback.monitor.run.observed.loss_calls
    codes = {f.code for f in callback.monitor.findings() if f.severity != "info"}
    assert codes & {"LR_TOO_HIGH", "NAN_LOSS", "LOSS_DIVERGING", "EXPLODING_GRADIENTS"}, codes
    assert Accelerator.backward is original        # put back when the run ended
    torch.manual_seed(0)
    healthy = NNDebugCallback(verbose=False)
    _fit_hf(TinyHFModel(), [healthy], tmp_path / "healthy")
    assert healthy.monitor.run.n_steps == 24
    assert not [f.code for f in healthy.monitor.findings() if f.severity != "info"]


def test_hf_accumulation_steps_once_per_optimizer_step(tmp_path):
    from nndebug.integrations.transformers import NNDebugCallback
    torch.manual_seed(0)
    callback = NNDebugCallback(verbose=False, overhead=None)
    trainer = _fit_hf(TinyHFModel(), [callback], tmp_path, accumulate=3)
    assert callback.monitor.run.n_steps == trainer.state.global_step
    bad = [f.code for f in callback.monitor.findings() if f.severity != "info"]
    assert "GRADIENTS_ACCUMULATING" not in bad, bad


def test_lightning_checkpoint_keeps_one_monitor_history(tmp_path):
    from lightning.pytorch.callbacks import ModelCheckpoint
    from nndebug.integrations.lightning import NNDebugCallback
    x, y = _data()
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=16)

    def fit(epochs, callback, ckpt_path=None):
        trainer = pl.Trainer(max_epochs=epochs, accelerator="cpu", devices=1, logger=False,
                             enable_progress_bar=False, enable_model_summary=False,
                             callbacks=[callback, ModelCheckpoint(dirpath=tmp_path, save_last=True)])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            trainer.fit(TinyClassifier(), loader, ckpt_path=ckpt_path)
        return trainer

    torch.manual_seed(0)
    first = NNDebugCallback(verbose=False)
    fit(2, first)
    assert first.monitor.run.n_steps == 12
    resumed = NNDebugCallback(verbose=False)
    trainer = fit(4, resumed, ckpt_path=str(tmp_path / "last.ckpt"))
    assert trainer.global_step == 24
    assert resumed.monitor.run.n_steps == 24, "the resumed run must continue the history"
    assert len(resumed.monitor.run.losses) == 24


def test_hf_checkpoint_keeps_one_monitor_history(tmp_path):
    """Two epochs with a checkpoint after each, then trainer.train(resume_from_checkpoint=True)
    to four epochs with a fresh callback: the monitor's state comes back from the checkpoint
    folder, the history continues at step 12, and the findings are those of one 24-step run."""
    from nndebug.integrations.transformers import STATE_FILE, NNDebugCallback
    x, y = _data()

    def fit(epochs, callback, output_dir, resume=None):
        args = transformers.TrainingArguments(
            output_dir=str(output_dir), per_device_train_batch_size=16, num_train_epochs=epochs,
            learning_rate=0.05, lr_scheduler_type="constant", optim="sgd", weight_decay=0.0,
            report_to=[], save_strategy="epoch", logging_strategy="no", disable_tqdm=True,
            use_cpu=True, seed=3, data_seed=3, max_grad_norm=0.0, dataloader_num_workers=0)
        torch.manual_seed(0)
        trainer = transformers.Trainer(model=TinyHFModel(), args=args, train_dataset=_Rows(x, y),
                                       callbacks=[callback])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            trainer.train(resume_from_checkpoint=resume)
        return trainer

    whole = NNDebugCallback(verbose=False, overhead=None)
    fit(4, whole, tmp_path / "whole")
    first = NNDebugCallback(verbose=False, overhead=None)
    fit(2, first, tmp_path / "split")
    assert (tmp_path / "split" / "checkpoint-12" / STATE_FILE).is_file()
    assert torch.load(tmp_path / "split" / "checkpoint-6" / STATE_FILE)["header"]["n_steps"] == 6
    resumed = NNDebugCallback(verbose=False, overhead=None)
    trainer = fit(4, resumed, tmp_path / "split", resume=True)
    assert trainer.state.global_step == 24 and resumed.monitor.run.n_steps == 24
    steps, losses = resumed.monitor.run.loss_array()
    whole_steps, whole_losses = whole.monitor.run.loss_array()
    assert steps.tolist() == whole_steps.tolist() == list(range(24))
    torch.testing.assert_close(torch.tensor(losses), torch.tensor(whole_losses))
    codes = lambda callback: sorted({f.code for f in callback.monitor.findings()})  # noqa: E731
    assert codes(resumed) == codes(whole)
    assert (tmp_path / "split" / "checkpoint-24" / STATE_FILE).is_file()


# --- Accelerate -----------------------------------------------------------------------------
def test_watch_takes_the_optimizer_accelerate_prepared():
    """``Accelerator.prepare`` returns an AcceleratedOptimizer that never ran torch's
    ``Optimizer.__init__``: registering a step hook on it raised, and every record of a
    watched Accelerate loop was lost (real-bug batch 150). watch steps through to the inner
    optimizer, whose hooks fire when the wrapper steps."""
    accelerate = pytest.importorskip("accelerate")
    import nndebug as nd
    torch.manual_seed(0)
    x, y = _data()
    model = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
    accelerator = accelerate.Accelerator(cpu=True)
    model, optimizer = accelerator.prepare(model, torch.optim.SGD(model.parameters(), lr=0.1))
    with nd.watch(model, optimizer) as mon:
        for step in range(30):
            rows = torch.arange(16) + 16 * (step % 6)
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x[rows]), y[rows])
            accelerator.backward(loss)
            optimizer.step()
            mon.step(loss)
    codes = {f.code for f in mon.findings()}
    assert "MONITOR_ERROR" not in codes, codes
    assert mon.run.records and all(r.update_norm is not None for r in mon.run.records)
    assert not [f.code for f in mon.findings() if f.severity != "info"]
