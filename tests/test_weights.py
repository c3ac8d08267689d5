"""nclue.weights: .npy/.npz headers read with the standard library, both digest rules, and the
provenance records behind Multi3IR Table 5's parameter counts.

The small files are written byte by byte here (the .npy layout of numpy.lib.format), so every
expected shape, count and digest is worked out from the format's definition, not from numpy.
"""

import hashlib
import json
import struct
import tempfile
import unittest
import zipfile
from pathlib import Path

from nclue.errors import InputError
from nclue.weights import (ARRAYS_RULE, FILE_RULE, array_headers, arrays_sha256,
                           checked_parameter_count, load_weights_record, parameter_count)

ROOT = Path(__file__).resolve().parents[1]


def npy_bytes(shape, values, descr="<f4", fortran=False, version=1):
    """A .npy file: magic, version, header length, header padded to 64 bytes, data."""
    header = "{'descr': %r, 'fortran_order': %s, 'shape': %r, }" % (descr, fortran, tuple(shape))
    size_len = 2 if version == 1 else 4
    pad = 64 - (6 + 2 + size_len + len(header) + 1) % 64
    header = (header + " " * pad + "\n").encode("latin-1")
    length = struct.pack("<H" if version == 1 else "<I", len(header))
    data = struct.pack("<%df" % len(values), *values) if descr == "<f4" else bytes(values)
    return b"\x93NUMPY" + bytes([version, 0]) + length + header + data


class Files(unittest.TestCase):
    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.dir = Path(folder.name)

    def write(self, name, data):
        path = self.dir / name
        path.write_bytes(data)
        return path

    def npz(self, name, arrays, compression=zipfile.ZIP_STORED):
        path = self.dir / name
        with zipfile.ZipFile(path, "w", compression) as archive:
            for key, data in arrays.items():
                archive.writestr(key + ".npy", data)
        return path


class HeaderTest(Files):
    def test_npy_shape_and_count(self):
        path = self.write("v.npy", npy_bytes((2, 3), [0.5] * 6))
        (header,) = array_headers(path)
        self.assertEqual((header.descr, header.fortran_order, header.shape), ("<f4", False, (2, 3)))
        # the data is the last 6 * 4 bytes; the header before it is padded to 64-byte blocks
        self.assertEqual(header.data_offset, path.stat().st_size - 24)
        self.assertEqual(header.data_offset % 64, 0)
        self.assertEqual(parameter_count((header,)), 6)

    def test_version_2_header(self):
        # version 2.0 stores the header length in 4 bytes: total header 64 bytes again
        path = self.write("v2.npy", npy_bytes((5,), [1.0] * 5, version=2))
        self.assertEqual(array_headers(path)[0].shape, (5,))

    def test_npz_counts_every_array(self):
        # a (2, 3) = 6 elements and b (4,) = 4 elements: 10 parameters; sorted by name
        path = self.npz("w.npz", {"b": npy_bytes((4,), [0.0] * 4),
                                  "a": npy_bytes((2, 3), [1.0] * 6)}, zipfile.ZIP_DEFLATED)
        headers = array_headers(path)
        self.assertEqual([(h.name, h.shape) for h in headers], [("a", (2, 3)), ("b", (4,))])
        self.assertEqual(parameter_count(headers), 10)

    def test_scalar_and_empty_shapes(self):
        # shape () holds one element; shape (0, 7) none
        self.assertEqual(array_headers(self.write("s.npy", npy_bytes((), [2.0])))[0].count, 1)
        self.assertEqual(array_headers(self.write("e.npy", npy_bytes((0, 7), [])))[0].count, 0)

    def test_committed_prefix_weights(self):
        # prefix-tuning, m = 5 sets of k = 10 prefix tokens of width H = 384: 5 * 10 * 384
        (header,) = array_headers(ROOT / "provenance/spin/adapt/prefix_m5_k10_l3.npz")
        self.assertEqual((header.name, header.shape), ("prefix", (5, 10, 384)))
        self.assertEqual(header.count, 19200)

    def test_bad_files(self):
        good = npy_bytes((2,), [1.0, 2.0])
        cases = {
            "magic.npy": b"NOTNPY" + good[6:],
            "version.npy": good[:6] + bytes([9, 0]) + good[8:],
            "truncated.npy": good[:-1],                      # 7 data bytes where 8 are needed
            "longer.npy": good + b"\0",
            "keys.npy": npy_bytes((2,), [1.0, 2.0]).replace(b"'shape'", b"'shapf'"),
            "structured.npy": npy_bytes((2,), [0] * 8, descr="|V4"),
            "text.npy": good[:10] + b"__import__('os')" + good[26:],
            "suffix.bin": good,
        }
        for name, data in cases.items():
            with self.assertRaises(InputError, msg=name) as ctx:
                array_headers(self.write(name, data))
            self.assertIn(name, str(ctx.exception))
            self.assertNotIn("\n", str(ctx.exception))
        with self.assertRaises(InputError):
            array_headers(self.write("zip.npz", b"PK not a zip"))
        with self.assertRaises(InputError):
            array_headers(self.npz("other.npz", {"../x": good}))


class DigestTest(Files):
    def test_arrays_rule_by_definition(self):
        a = npy_bytes((2, 1), [1.0, -2.0])
        b = npy_bytes((3,), [0.25, 0.5, 0.75])
        path = self.npz("w.npz", {"b": b, "a": a})
        expected = hashlib.sha256(
            b"a\0[2, 1]\0" + struct.pack("<2f", 1.0, -2.0)
            + b"b\0[3]\0" + struct.pack("<3f", 0.25, 0.5, 0.75)).hexdigest()
        self.assertEqual(arrays_sha256(path), expected)
        # the container does not matter: the same arrays deflated give the same digest
        self.assertEqual(arrays_sha256(self.npz("d.npz", {"a": a, "b": b}, zipfile.ZIP_DEFLATED)),
                         expected)

    def test_arrays_rule_needs_little_endian_float32(self):
        path = self.npz("f.npz", {"a": npy_bytes((2,), [1.0, 2.0], fortran=True)})
        with self.assertRaises(InputError):
            arrays_sha256(path)
        with self.assertRaises(InputError):
            arrays_sha256(self.npz("i.npz", {"a": npy_bytes((4,), [1, 2, 3, 4], descr="|u1")}))


class RecordTest(Files):
    def record(self, name, **fields):
        return self.write(name, json.dumps(fields).encode())

    def test_file_rule_record(self):
        data = npy_bytes((5, 4), [0.0] * 20)
        self.write("vec.npy", data)
        path = self.record("r.json", vectors_file="vec.npy",
                           vectors_sha256=hashlib.sha256(data).hexdigest())
        record = load_weights_record(path)
        self.assertEqual((record.rule, record.committed), (FILE_RULE, True))
        self.assertEqual(checked_parameter_count(record, self.dir), 20)

    def test_arrays_rule_record_and_recorded_count(self):
        a = npy_bytes((3,), [1.0, 2.0, 3.0])
        self.npz("w.npz", {"a": a})
        digest = hashlib.sha256(b"a\0[3]\0" + struct.pack("<3f", 1.0, 2.0, 3.0)).hexdigest()
        good = self.record("r.json", weights_file="w.npz", weights_sha256=digest,
                           weights_sha256_rule=ARRAYS_RULE, parameters=3)
        self.assertEqual(checked_parameter_count(load_weights_record(good), self.dir), 3)
        wrong_count = self.record("c.json", weights_file="w.npz", weights_sha256=digest,
                                  weights_sha256_rule=ARRAYS_RULE, parameters=4)
        with self.assertRaises(InputError) as ctx:
            checked_parameter_count(load_weights_record(wrong_count), self.dir)
        self.assertIn("c.json", str(ctx.exception))
        wrong_digest = self.record("d.json", weights_file="w.npz", weights_sha256="0" * 64,
                                   weights_sha256_rule=ARRAYS_RULE)
        with self.assertRaises(InputError) as ctx:
            checked_parameter_count(load_weights_record(wrong_digest), self.dir)
        self.assertIn("d.json", str(ctx.exception))

    def test_not_committed_weights_have_no_count(self):
        path = self.record("r.json", weights_file="build/w.npz (not committed)",
                           weights_sha256="a" * 64, weights_sha256_rule=ARRAYS_RULE,
                           parameters=3317760)
        record = load_weights_record(path)
        self.assertEqual((record.committed, record.weights_file, record.recorded_parameters),
                         (False, "build/w.npz", 3317760))
        self.assertIsNone(checked_parameter_count(record, self.dir))

    def test_bad_records(self):
        cases = {
            "missing.json": dict(vectors_file="absent.npy", vectors_sha256="a" * 64),
            "rule.json": dict(weights_file="w.npz", weights_sha256="a" * 64,
                              weights_sha256_rule="md5 of something"),
            "hex.json": dict(vectors_file="v.npy", vectors_sha256="XYZ"),
            "none.json": dict(model="MiniLM"),
            "count.json": dict(vectors_file="v.npy", vectors_sha256="a" * 64, parameters=-1),
            "outside.json": dict(vectors_file="../v.npy", vectors_sha256="a" * 64),
        }
        for name, fields in cases.items():
            with self.assertRaises(InputError, msg=name) as ctx:
                checked_parameter_count(load_weights_record(self.record(name, **fields)), self.dir)
            self.assertIn(name, str(ctx.exception))

    def test_every_committed_spin_and_prefix_record_checks(self):
        # m x 384 for SPIN vectors, 5 x 10 x 384 for prefix-tuning
        for name, count in (("spin/spin_m5_l0.json", 5 * 384), ("spin/spin_m9_l3.json", 9 * 384),
                            ("spin/adapt/prefix_m5_k10_l0.json", 19200)):
            record = load_weights_record(ROOT / "provenance" / name)
            self.assertEqual(checked_parameter_count(record, ROOT), count, name)


if __name__ == "__main__":
    unittest.main()
