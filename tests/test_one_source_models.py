"""One model source, two frameworks: the same class definitions run in minigrad and torch.

The models in ``minigrad.examples.models`` are written once against a framework
namespace. Built for both, with torch's weights copied into minigrad, they must
agree in float64 on the loss, the logits, every parameter gradient, and the
parameters after a few AdamW steps.
"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from minigrad.examples.models import (  # noqa: E402
    make_gpt, make_recurrent_lm, minigrad_framework, torch_framework)

VOCAB = 11
TOL = dict(rtol=1e-8, atol=1e-10)


def twin_models(build):
    torch_fw, mg_fw = torch_framework(), minigrad_framework()
    torch.manual_seed(0)
    theirs = build(torch_fw).double()
    ours = build(mg_fw).double()
    ours.load_state_dict(theirs.state_dict())
    assert list(dict(ours.named_parameters())) == list(dict(theirs.named_parameters()))
    return (torch_fw, theirs), (mg_fw, ours)


def batch(seed, n=3, length=8):
    rng = np.random.default_rng(seed)
    return rng.integers(0, VOCAB, (n, length)), rng.integers(0, VOCAB, (n, length))


def _step(fw, model, optimizer, ids, targets):
    optimizer.zero_grad()
    logits, loss = model(fw.tensor(ids), fw.tensor(targets))
    loss.backward()
    grads = {name: fw.numpy(p.grad) if fw.name == "minigrad" else p.grad.numpy()
             for name, p in model.named_parameters()}
    optimizer.step()
    return fw.numpy(logits), float(fw.numpy(loss)), grads


BUILDERS = {
    "gpt_hand_written_attention": lambda fw: make_gpt(fw, VOCAB, block_size=8, n_embd=16,
                                                      n_head=2, n_layer=2),
    "gpt_scaled_dot_product_attention": lambda fw: make_gpt(fw, VOCAB, block_size=8, n_embd=16,
                                                            n_head=2, n_layer=2, attention="sdpa"),
    "lstm_2_layers": lambda fw: make_recurrent_lm(fw, VOCAB, "LSTM"),
    "gru_2_layers": lambda fw: make_recurrent_lm(fw, VOCAB, "GRU"),
}


@pytest.mark.parametrize("name", list(BUILDERS))
def test_same_source_same_weights_same_training(name):
    (tfw, theirs), (mfw, ours) = twin_models(BUILDERS[name])
    t_opt = tfw.optim.AdamW(theirs.parameters(), lr=1e-2)
    m_opt = mfw.optim.AdamW(ours.parameters(), lr=1e-2)
    for step in range(3):
        ids, targets = batch(step)
        t_logits, t_loss, t_grads = _step(tfw, theirs, t_opt, ids, targets)
        m_logits, m_loss, m_grads = _step(mfw, ours, m_opt, ids, targets)
        np.testing.assert_allclose(m_logits, t_logits, **TOL)
        assert m_loss == pytest.approx(t_loss, rel=1e-10)
        for param_name, grad in t_grads.items():
            np.testing.assert_allclose(m_grads[param_name], grad, err_msg=f"step {step} {param_name}",
                                       **TOL)
    for (param_name, t_param), (_, m_param) in zip(theirs.named_parameters(),
                                                   ours.named_parameters()):
        np.testing.assert_allclose(m_param.data, t_param.detach().numpy(), err_msg=param_name,
                                   **TOL)


def test_the_two_attention_spellings_agree():
    """Hand-written attention and scaled_dot_product_attention are the same function."""
    mfw = minigrad_framework()
    import minigrad as mg
    mg.manual_seed(3)
    hand = make_gpt(mfw, VOCAB, block_size=8, n_embd=16, n_head=2).double()
    fused = make_gpt(mfw, VOCAB, block_size=8, n_embd=16, n_head=2, attention="sdpa").double()
    fused.load_state_dict(hand.state_dict())
    ids, _ = batch(5)
    np.testing.assert_allclose(fused(mfw.tensor(ids)).data, hand(mfw.tensor(ids)).data, **TOL)


def test_the_causal_mask_hides_the_future():
    """Changing a later token must not change the logits at earlier positions."""
    mfw = minigrad_framework()
    model = make_gpt(mfw, VOCAB, block_size=8, n_embd=16, n_head=2).double()
    ids, _ = batch(6)
    changed = ids.copy()
    changed[:, 5] = (changed[:, 5] + 1) % VOCAB
    before, after = model(mfw.tensor(ids)).data, model(mfw.tensor(changed)).data
    np.testing.assert_allclose(after[:, :5], before[:, :5], **TOL)
    assert not np.allclose(after[:, 5:], before[:, 5:])
