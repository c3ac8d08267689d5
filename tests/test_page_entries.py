"""A page-scored run's entries are checked a column at a time (nclue.runs._page_entries); the
result must be what the entry rule says, entry by entry: ``[page, score]`` with an integer page
>= 1 (not a bool) and a finite number as score (not a bool), every score made a float."""

import itertools
import math
import unittest

from nclue.runs import _page_entries


def by_the_rule(items):
    """The rule written entry by entry (the reference)."""
    out = []
    for item in items:
        if not (type(item) is list and len(item) == 2):
            return None
        page, score = item
        if type(page) is not int or page < 1:
            return None
        if type(score) not in (int, float) or not math.isfinite(score):
            return None
        out.append((page, float(score)))
    return tuple(out)


ENTRIES = [[1, 2.5], [3, 0], [7, -1.0], [0, 1.0], [True, 1.0], [2, True], [2, float("nan")],
           [2, float("inf")], [2.0, 1.0], [2, "1"], [2], [2, 1.0, 3], (2, 1.0), 5, None, [2, -0.0]]


class PageEntries(unittest.TestCase):
    def test_every_pair_of_entry_forms(self):
        for size in (0, 1, 2):
            for items in itertools.product(ENTRIES, repeat=size):
                items = [list(i) if isinstance(i, list) else i for i in items]
                with self.subTest(items=items):
                    got, want = _page_entries(items), by_the_rule(items)
                    self.assertEqual(got, want)
                    if want is not None:  # floats, with the sign of a zero kept
                        self.assertEqual([math.copysign(1, s) for _, s in got],
                                         [math.copysign(1, s) for _, s in want])
                        self.assertTrue(all(type(s) is float for _, s in got))


if __name__ == "__main__":
    unittest.main()
