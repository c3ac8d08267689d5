"""Steering methods at equal footing on a frozen all-MiniLM-L6-v2 (Multi3IR sec. 6.2, Table 5).

Torch code for the producer only; ``nclue`` never imports it.

Every method turns one query into m = 5 embeddings with m separate parameter sets (copy j of a
query uses set j), injected from a layer ``layer`` of the 6-layer encoder: ``layer = 0`` means
"from the embedding output" (every transformer layer is above the injection point; the paper's
L0 / L0-36), ``layer = 3`` the middle (the paper's L18 / L18-36 of 36: the layers above the
output of layer 3). The frozen layers below the injection point run once per query and are cached
(``spin_lib.lower_states``); the m copies run through the layers above it (the split forward that
``check_split.py`` checks for SPIN). All encoder weights stay frozen; only the method's
parameters train, with SPIN's objective (noisy-OR loss, Algorithm 1) and SPIN's training
schedule, so the methods differ only in how they inject.

* ``spin``   -- SPIN: vector eps_j (R^H) added to every token's hidden state at the injection
  point (Algorithm 1 line 4). m H parameters.
* ``prefix`` -- prefix-tuning with k = 10 (Li and Liang 2021, at one layer, as the paper's counts
  5 x 10 x 4096 = 204.8K imply): k learned hidden-state tokens P_j (k x H) prepended to copy j's
  sequence at the injection point; every token above attends to them; the sentence embedding is
  the mean over the query's own tokens (prefix tokens are not pooled, as a decoder's last-token
  embedding would not be the prefix). m k H parameters.
* ``lora``   -- LoRA r = 16, alpha = 16 (scale 1; Hu et al. 2021): W x + B_j A_j x on the query,
  key, value and attention-output projections and both feed-forward projections of every layer
  above the injection point (PEFT's init: A Kaiming-uniform, B = 0). m r (in + out) per matrix.
* ``adapter`` -- bottleneck adapter r = 64 (Houlsby et al. 2019, one per layer, as the paper's
  counts 2 r H per adapter imply): y + U_j relu(D_j y) on the feed-forward output projection
  (before the residual LayerNorm) of every layer above the injection point; D Kaiming-uniform,
  U = 0, no biases. m 2 r H per layer.

Parameter counts on MiniLM (H = 384, FFN 1536, m = 5): spin 1,920; prefix 19,200; lora 3,317,760
from layer 0 / 1,658,880 from layer 3; adapter 1,474,560 / 737,280 (``parameter_count``).
"""

import math
from contextlib import contextmanager
from typing import Dict, List

import torch
import torch.nn.functional as F

METHODS = ("spin", "prefix", "lora", "adapter")
PREFIX_K = 10
LORA_R = 16
LORA_ALPHA = 16
ADAPTER_R = 64
LORA_TARGETS = ("attention.self.query", "attention.self.key", "attention.self.value",
                "attention.output.dense", "intermediate.dense", "output.dense")


def _module(root, dotted: str):
    for name in dotted.split("."):
        root = getattr(root, name)
    return root


class Method(torch.nn.Module):
    """The trainable parameters of one method (m sets) and how they enter the upper layers."""

    def __init__(self, kind: str, bert, layer: int, m: int, generator: torch.Generator,
                 init_std: float = 0.01):
        super().__init__()
        if kind not in METHODS:
            raise ValueError(kind)
        n_layers = bert.config.num_hidden_layers
        if not 0 <= layer < n_layers:
            raise ValueError(f"injection layer must be in 0..{n_layers - 1}")
        self.kind, self.layer, self.m = kind, layer, m
        self.upper = list(range(layer, n_layers))          # 0-based indices of trained layers
        h = bert.config.hidden_size
        self.params = torch.nn.ParameterDict()
        if kind == "spin":
            self.params["eps"] = torch.nn.Parameter(torch.randn(m, h, generator=generator) * init_std)
        elif kind == "prefix":
            self.params["prefix"] = torch.nn.Parameter(
                torch.randn(m, PREFIX_K, h, generator=generator) * init_std)
        elif kind == "lora":
            for j in self.upper:
                for target in LORA_TARGETS:
                    lin = _module(bert.encoder.layer[j], target)
                    fan_in, fan_out = lin.in_features, lin.out_features
                    bound = 1.0 / math.sqrt(fan_in)   # kaiming_uniform(a=sqrt(5)), as PEFT
                    a = (torch.rand(m, LORA_R, fan_in, generator=generator) * 2 - 1) * bound
                    key = f"l{j}_{target.replace('.', '_')}"
                    self.params[key + "_A"] = torch.nn.Parameter(a)
                    self.params[key + "_B"] = torch.nn.Parameter(torch.zeros(m, fan_out, LORA_R))
        elif kind == "adapter":
            bound = 1.0 / math.sqrt(h)
            for j in self.upper:
                d = (torch.rand(m, ADAPTER_R, h, generator=generator) * 2 - 1) * bound
                self.params[f"l{j}_down"] = torch.nn.Parameter(d)
                self.params[f"l{j}_up"] = torch.nn.Parameter(torch.zeros(m, h, ADAPTER_R))

    def count(self) -> int:
        return sum(p.numel() for p in self.params.values())

    # -- hooks (lora, adapter) ----------------------------------------------------------------
    @contextmanager
    def installed(self, bert):
        handles = []
        m = self.m
        if self.kind == "lora":
            scale = LORA_ALPHA / LORA_R
            for j in self.upper:
                for target in LORA_TARGETS:
                    key = f"l{j}_{target.replace('.', '_')}"
                    a, b = self.params[key + "_A"], self.params[key + "_B"]

                    def hook(module, inputs, output, a=a, b=b):
                        x = inputs[0]
                        x4 = x.reshape(x.shape[0] // m, m, *x.shape[1:])        # [B, m, T, in]
                        # broadcast matmul (3-4x faster than the equivalent einsum on CPU)
                        low = torch.matmul(x4, a.transpose(1, 2).unsqueeze(0))  # [B, m, T, r]
                        delta = torch.matmul(low, b.transpose(1, 2).unsqueeze(0)) * scale
                        return output + delta.reshape(output.shape)
                    handles.append(_module(bert.encoder.layer[j], target)
                                   .register_forward_hook(hook))
        elif self.kind == "adapter":
            for j in self.upper:
                d, u = self.params[f"l{j}_down"], self.params[f"l{j}_up"]

                def hook(module, inputs, output, d=d, u=u):
                    y4 = output.reshape(output.shape[0] // m, m, *output.shape[1:])
                    z = torch.relu(torch.matmul(y4, d.transpose(1, 2).unsqueeze(0)))
                    return output + torch.matmul(z, u.transpose(1, 2).unsqueeze(0)).reshape(output.shape)
                handles.append(bert.encoder.layer[j].output.dense.register_forward_hook(hook))
        try:
            yield
        finally:
            for handle in handles:
                handle.remove()

    # -- the copies' input at the injection point --------------------------------------------
    def prepare(self, h: torch.Tensor, am: torch.Tensor):
        """h [B*m, T, H] (row b*m + j = copy j of query b), am [B*m, T] -> (h, attention mask,
        pooling mask)."""
        b = h.shape[0] // self.m
        if self.kind == "spin":
            return h + self.params["eps"].repeat(b, 1).unsqueeze(1), am, am
        if self.kind == "prefix":
            p = self.params["prefix"].repeat(b, 1, 1)                      # [B*m, k, H]
            ones = torch.ones(am.shape[0], PREFIX_K, dtype=am.dtype)
            return (torch.cat([p.to(h.dtype), h], dim=1), torch.cat([ones, am], dim=1),
                    torch.cat([torch.zeros_like(ones), am], dim=1))
        return h, am, am


def method_embeddings(st, states: List[torch.Tensor], method: Method) -> torch.Tensor:
    """[len(states), m, H] unit embeddings: pad the cached states leaving the injection point,
    make m copies, let the method act, run the layers above it, mean-pool the query tokens and
    L2-normalise (all-MiniLM-L6-v2's pooling)."""
    bert = st[0].auto_model
    m = method.m
    b = len(states)
    t = max(s.shape[0] for s in states)
    h = states[0].new_zeros((b, t, states[0].shape[1]))
    am = torch.zeros((b, t), dtype=torch.long)
    for k, s in enumerate(states):
        h[k, :s.shape[0]] = s
        am[k, :s.shape[0]] = 1
    h = h.repeat_interleave(m, dim=0)
    amr = am.repeat_interleave(m, dim=0)
    h, attn, pool = method.prepare(h, amr)
    mask = bert._create_attention_masks(attention_mask=attn, encoder_attention_mask=None,
                                        embedding_output=h, encoder_hidden_states=None,
                                        cache=None)[0]
    with method.installed(bert):
        for j in method.upper:
            h = bert.encoder.layer[j](h, mask)
    w = pool.unsqueeze(-1).to(h.dtype)
    pooled = (h * w).sum(1) / w.sum(1).clamp(min=1e-9)
    return F.normalize(pooled, dim=-1).reshape(b, m, -1)


def parameter_count(kind: str, layer: int, m: int = 5, hidden: int = 384, ffn: int = 1536,
                    n_layers: int = 6) -> int:
    """Closed-form parameter count (checked against ``Method.count`` in check_adapt.py)."""
    upper = n_layers - layer
    if kind == "spin":
        return m * hidden
    if kind == "prefix":
        return m * PREFIX_K * hidden
    if kind == "lora":
        per_layer = 4 * LORA_R * (hidden + hidden) + LORA_R * (hidden + ffn) + LORA_R * (ffn + hidden)
        return m * upper * per_layer
    if kind == "adapter":
        return m * upper * 2 * ADAPTER_R * hidden
    raise ValueError(kind)


def state_arrays(method: Method) -> Dict[str, "object"]:
    """The trained parameters as float32 numpy arrays (sorted names), for saving."""
    return {k: method.params[k].detach().float().numpy() for k in sorted(method.params)}
