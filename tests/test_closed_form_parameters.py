"""Multi3IR Table 5: the closed-form parameter recount behind rows whose weights are not committed.

Expected counts are worked out by hand from each method's definition (Multi3IR sec. 6.2), and the
formula is then held against the shipped records: it must reproduce every committed weight file's
element count (read from its .npy headers) and every recorded count of the uncommitted ones.
"""

import json
import unittest
from pathlib import Path

from nclue.tables.adaptation import closed_form_parameters
from nclue.weights import checked_parameter_count, load_weights_record

ROOT = Path(__file__).resolve().parents[1]
HIDDEN, FFN = 384, 1536  # all-MiniLM-L6-v2 config.json: hidden_size, intermediate_size
RANKS = {"spin": None, "prefix": 10, "lora": 16, "adapter": 64}


class ByHand(unittest.TestCase):
    def test_tiny_dimensions(self):
        # hidden 2, ffn 3, one embedding, one layer, rank 1
        self.assertEqual(closed_form_parameters("spin", 1, 1, None, 2, 3), 2)
        self.assertEqual(closed_form_parameters("prefix", 1, 1, 1, 2, 3), 2)  # 1 prefix vector of size 2
        # LoRA: 4 attention maps 2->2: 1*(2+2) each = 16; FFN 2->3 and 3->2: 1*(2+3) each = 10
        self.assertEqual(closed_form_parameters("lora", 1, 1, 1, 2, 3), 26)
        # adapter: down 2->1 and up 1->2, no biases
        self.assertEqual(closed_form_parameters("adapter", 1, 1, 1, 2, 3), 4)

    def test_scales_with_embeddings_and_layers(self):
        self.assertEqual(closed_form_parameters("lora", 5, 3, 1, 2, 3), 5 * 3 * 26)
        self.assertEqual(closed_form_parameters("adapter", 5, 6, 64, 384, 1536), 5 * 6 * 2 * 64 * 384)

    def test_needs_a_rank_and_a_known_method(self):
        with self.assertRaises(ValueError):
            closed_form_parameters("lora", 1, 1, None, 2, 3)
        with self.assertRaises(ValueError):
            closed_form_parameters("ia3", 1, 1, 1, 2, 3)


class ShippedRecords(unittest.TestCase):
    def test_formula_reproduces_committed_weights_and_recorded_counts(self):
        checked = {"counted": 0, "recorded": 0}
        folders = [ROOT / "provenance" / "spin" / "adapt", ROOT / "provenance" / "spin" / "heldout" / "adapt"]
        for folder in folders:
            for path in sorted(folder.glob("*_m5_*_l[03].json")):
                method = path.name.split("_")[0]
                obj = json.loads(path.read_text(encoding="utf-8"))
                closed = closed_form_parameters(method, obj["m"], len(obj.get("injected_layers", [])),
                                                RANKS[method], HIDDEN, FFN)
                record = load_weights_record(path)
                counted = checked_parameter_count(record, ROOT)
                if counted is not None:
                    self.assertEqual(closed, counted, path.name)
                    checked["counted"] += 1
                else:
                    self.assertEqual(closed, obj["parameters"], path.name)
                    checked["recorded"] += 1
        self.assertGreater(checked["counted"], 0)
        self.assertGreater(checked["recorded"], 0)


if __name__ == "__main__":
    unittest.main()
