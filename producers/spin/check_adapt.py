"""Checks of the Table 5 adaptation methods (adapt_lib.py); exit 0 when all pass.

    python producers/spin/check_adapt.py

1. ``spin`` through ``method_embeddings`` equals ``spin_lib.upper_embeddings`` (the SPIN runs'
   arithmetic) for random vectors, from layer 0 and layer 3.
2. At initialisation LoRA (B = 0) and the adapter (U = 0) leave the encoder unchanged: every
   copy equals ``st.encode`` (to 1e-5).
3. LoRA with random non-zero B, m = 1, equals an independent computation: the same encoder with
   the merged weights W + (alpha / r) B A written into a deep copy, encoded by ``st.encode``.
4. Prefix with its k tokens masked out of attention is the identity (every copy equals
   ``st.encode``): the pooling excludes the prefix and nothing else changes.
5. ``Method.count()`` equals the closed-form ``parameter_count`` for every method and both layers,
   and gradients reach the method's parameters only (no frozen weight gets a gradient).
"""

import copy
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from adapt_lib import (LORA_ALPHA, LORA_R, LORA_TARGETS, METHODS, PREFIX_K, Method,  # noqa: E402
                       _module, method_embeddings, parameter_count)
from spin_lib import load_minilm, lower_states, upper_embeddings  # noqa: E402

texts = ['Find the document that discusses "TikZ" and "Bibliography".',
         'Find the document that discusses "beamer", "overlays", and "hyperref".', "geometry"]
st = load_minilm()
bert = st[0].auto_model
failures = []


def check(name, value, limit):
    ok = value <= limit
    print("%-60s %.2e %s" % (name, value, "ok" if ok else "FAIL"))
    if not ok:
        failures.append(name)


with torch.no_grad():
    ref = torch.tensor(st.encode(texts, batch_size=32))
    for layer in (0, 3):
        states = lower_states(st, texts, layer)
        g = torch.Generator().manual_seed(7 + layer)
        meth = Method("spin", bert, layer, 5, g)
        meth.params["eps"].copy_(torch.randn(5, 384, generator=g) * 0.5)
        a = method_embeddings(st, states, meth)
        b = upper_embeddings(st, states, layer, meth.params["eps"])
        check(f"1. spin method == upper_embeddings (layer {layer})", float((a - b).abs().max()), 1e-6)
        for kind in ("lora", "adapter"):
            meth = Method(kind, bert, layer, 5, torch.Generator().manual_seed(1))
            out = method_embeddings(st, states, meth)
            check(f"2. {kind} at init == st.encode (layer {layer})",
                  float((out - ref.unsqueeze(1)).abs().max()), 1e-5)
        # 4. prefix masked out of attention: patch prepare to give the prefix a zero attention mask
        meth = Method("prefix", bert, layer, 5, torch.Generator().manual_seed(2))
        meth.params["prefix"].copy_(torch.randn(5, PREFIX_K, 384) * 3.0)
        orig = meth.prepare

        def masked(h, am, orig=orig):
            h2, attn, pool = orig(h, am)
            attn = attn.clone()
            attn[:, :PREFIX_K] = 0
            return h2, attn, pool
        meth.prepare = masked
        out = method_embeddings(st, states, meth)
        check(f"4. prefix with masked prefix == st.encode (layer {layer})",
              float((out - ref.unsqueeze(1)).abs().max()), 1e-5)

    # 3. LoRA vs merged weights (m = 1)
    for layer in (0, 3):
        meth = Method("lora", bert, layer, 1, torch.Generator().manual_seed(3))
        for k, p in meth.params.items():
            if k.endswith("_B"):
                p.copy_(torch.randn(p.shape, generator=torch.Generator().manual_seed(len(k))) * 0.02)
        out = method_embeddings(st, lower_states(st, texts, layer), meth)[:, 0]
        merged = copy.deepcopy(st)
        mb = merged[0].auto_model
        for j in meth.upper:
            for target in LORA_TARGETS:
                key = f"l{j}_{target.replace('.', '_')}"
                lin = _module(mb.encoder.layer[j], target)
                delta = (meth.params[key + "_B"][0] @ meth.params[key + "_A"][0]) * (LORA_ALPHA / LORA_R)
                lin.weight.add_(delta)
        want = torch.tensor(merged.encode(texts, batch_size=32))
        check(f"3. lora == merged weights, m=1 (layer {layer})", float((out - want).abs().max()), 1e-5)

# 5. counts and gradients
for kind in METHODS:
    for layer in (0, 3):
        meth = Method(kind, bert, layer, 5, torch.Generator().manual_seed(4))
        got, want = meth.count(), parameter_count(kind, layer, 5)
        check(f"5. {kind} layer {layer}: count {got} vs closed form {want}", abs(got - want), 0)
        for p in meth.parameters():
            p.data.add_(torch.randn(p.shape) * 0.01)   # non-zero B / U so every path carries grad
        out = method_embeddings(st, lower_states(st, texts[:2], layer), meth)
        out.sum().backward()
        frozen = sum(1 for p in st.parameters() if p.grad is not None)
        missing = sum(1 for p in meth.parameters() if p.grad is None or not p.grad.abs().sum() > 0)
        check(f"5. {kind} layer {layer}: frozen grads {frozen}, params without grad {missing}",
              frozen + missing, 0)

print("FAIL: " + ", ".join(failures) if failures else "all checks pass")
sys.exit(1 if failures else 0)
