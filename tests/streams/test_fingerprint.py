"""A stream's fingerprint: a file by its size, time and SHA-256 (whole, or both ends of a
large one), a generator by its spec and seed."""

from __future__ import annotations

import hashlib
import os

from distval.streams.fingerprint import BLOCK_BYTES, WHOLE_BYTES, changed, fingerprint


def test_a_small_file_is_hashed_whole_and_a_touch_changes_nothing(tmp_path):
    path = tmp_path / "s.csv"
    path.write_bytes(b"x,y\n1,a\n" * 100)
    fp = fingerprint(str(path), None)
    assert fp["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest() and fp["whole"]
    os.utime(path, ns=(1, 1))
    assert changed(fp, fingerprint(str(path), None)) is None


def test_a_large_file_is_known_by_both_ends_and_its_time(tmp_path):
    path = tmp_path / "big.csv"
    data = bytearray(os.urandom(WHOLE_BYTES + 3 * BLOCK_BYTES))
    path.write_bytes(data)
    fp = fingerprint(str(path), None)
    ends = hashlib.sha256(data[:BLOCK_BYTES] + data[-BLOCK_BYTES:]).hexdigest()
    assert fp["sha256"] == ends and not fp["whole"]
    data[-1] ^= 0xFF  # the last byte
    path.write_bytes(data)
    os.utime(path, ns=(fp["mtime_ns"], fp["mtime_ns"]))
    assert changed(fp, fingerprint(str(path), None)) == "its content changed"
    data[-1] ^= 0xFF
    data[len(data) // 2] ^= 0xFF  # the middle: only the time can tell
    path.write_bytes(data)
    assert changed(fp, fingerprint(str(path), None)) == "its modification time changed"


def test_a_generator_is_known_by_its_spec_and_seed():
    assert changed(fingerprint("sea", 1), fingerprint("sea", 1)) is None
    assert changed(fingerprint("sea", 1), fingerprint("sea(noise=0.1)", 1)) is not None
