"""Check that the split forward (cached lower layers) equals the hooked full forward.

    python producers/spin/check_split.py     (exit 0 when max |difference| <= 1e-5)
"""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from spin_lib import Steerer, load_minilm, lower_states, steered_embeddings, upper_embeddings  # noqa

texts = ['Find the document that discusses "TikZ" and "Bibliography".',
         'Find the document that discusses "beamer", "overlays", and "hyperref".', "geometry"]
st = load_minilm()
worst = 0.0
with torch.no_grad():
    ref0 = torch.tensor(st.encode(texts, batch_size=32))
    for layer in (0, 1, 3, 5):
        vec = torch.randn(3, 384, generator=torch.Generator().manual_seed(layer)) * 0.5
        steerer = Steerer(st, layer)
        full = steered_embeddings(st, steerer, texts, vec)
        steerer.remove()
        split = upper_embeddings(st, lower_states(st, texts, layer), layer, vec)
        zero = upper_embeddings(st, lower_states(st, texts, layer), layer, torch.zeros(1, 384))
        d1 = float((full - split).abs().max())
        d0 = float((zero[:, 0] - ref0).abs().max())
        print("layer %d: |hook - split| %.2e, |split(v=0) - st.encode| %.2e" % (layer, d1, d0))
        worst = max(worst, d1, d0)
print("worst %.2e" % worst, "OK" if worst <= 1e-5 else "FAIL")
sys.exit(0 if worst <= 1e-5 else 1)
