"""Fuzzing the reader: byte-level mutations of real-style records never raise, and the fast
path never disagrees with the strict one (it either declines or decodes identically)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mutation import mutate

from strat_tools.formats import fastscan
from strat_tools.formats.readers import parse_record

GRAVON = Path(__file__).parent / "fixtures" / "gravon"
BASES = [
    (GRAVON / name).read_bytes()
    for name in ("classic-2014.4-17.xml", "rescue_with_column_j.xml", "no_field.xml")
]
INTERESTING = b'<>"/=&;!-[]?#% \n\r\t\x00\xff\xef\xbb\xbfJK:0123456789ABYZ_'

byte = st.one_of(st.sampled_from(list(INTERESTING)), st.integers(0, 255))
edit = st.tuples(
    st.sampled_from(["replace", "insert", "delete", "duplicate"]),
    st.floats(0, 1),
    st.lists(byte, min_size=1, max_size=4),
    st.integers(1, 40),
)
FUZZ = settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


@FUZZ
@given(base=st.sampled_from(BASES), edits=st.lists(edit, min_size=1, max_size=4))
def test_mutated_records_never_raise_and_paths_agree(
    base: bytes, edits: list[tuple[str, float, list[int], int]]
) -> None:
    data = mutate(base, edits)
    fast = parse_record(data, "fuzz.xml")
    strict = parse_record(data, "fuzz.xml", fast=False)
    assert fast == strict
    if not strict.readable:
        assert any(d.code.startswith(("xml.", "source.")) for d in strict.errors)


@FUZZ
@given(data=st.binary(max_size=400))
def test_random_bytes_never_raise(data: bytes) -> None:
    record = parse_record(data, "random.xml")
    assert fastscan.scan(data) is None
    assert not record.readable or record.diagnostics


line_edit = st.tuples(
    st.sampled_from(["delete", "duplicate", "swap", "nest"]), st.floats(0, 1), st.floats(0, 1)
)


def mutate_lines(data: bytes, edits: list[tuple[str, float, float]]) -> bytes:
    """Structural edits on whole lines: elements dropped, repeated, reordered or nested."""
    lines = data.split(b"\n")
    for kind, first, second in edits:
        i, j = int(first * (len(lines) - 1)), int(second * (len(lines) - 1))
        if kind == "delete":
            del lines[i]
        elif kind == "duplicate":
            lines.insert(i, lines[i])
        elif kind == "swap":
            lines[i], lines[j] = lines[j], lines[i]
        else:  # nest line j inside line i's element, if i is self-closing
            if lines[i].endswith(b"/>"):
                tag = lines[i].strip().split(b" ")[0][1:]
                lines[i] = lines[i][:-2] + b">" + lines[j].strip() + b"</" + tag + b">"
        if not lines:
            break
    return b"\n".join(lines)


@FUZZ
@given(base=st.sampled_from(BASES), edits=st.lists(line_edit, min_size=1, max_size=3))
def test_structural_mutations_never_raise_and_paths_agree(
    base: bytes, edits: list[tuple[str, float, float]]
) -> None:
    data = mutate_lines(base, edits)
    fast = parse_record(data, "fuzz.xml")
    assert fast == parse_record(data, "fuzz.xml", fast=False)
    assert len(fast.lines) == fast.plies == len(fast.targets)
