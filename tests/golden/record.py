"""Record the outputs that the redesign (issue 15) must leave unchanged.

Run once before a change to the analysis floors, and again only for a deliberate change (in
its own commit, saying why):

    .venv/bin/python tests/golden/record.py            # data/ and ../shared/gravon

Each output is stored gzipped under ``tests/golden/<corpus>/``; ``tests/test_golden.py`` runs
the same commands and compares. The archive's path is written as ``<corpus>`` so that the
outputs do not depend on where the archive lives.
"""

from __future__ import annotations

import gzip
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent

STATS = [
    "flag",
    "bombs",
    "placement",
    "rows",
    "columns",
    "bombs-next-to-flag",
    "flag-enclosed",
    "win-rate",
    "endings",
    "lengths",
    "scouts",
    "scout-distances",
    "scout-attacks",
    "first-scout",
    "scouts-left",
]
ADVICE_VIEWS = ["tips", "periods", "adjacency", "entropy", "catalogue"]


def commands() -> dict[str, list[str]]:
    """Output file name -> the CLI arguments that make it (``{corpus}`` is the input)."""
    runs: dict[str, list[str]] = {"validate.json": ["validate", "--format", "json", "{corpus}"]}
    for stat in STATS:
        runs[f"stats-{stat}.csv"] = ["stats", "--stat", stat, "--format", "csv", "{corpus}"]
    for view in ADVICE_VIEWS:
        runs[f"advice-{view}.json"] = ["advice", "--view", view, "--format", "json", "{corpus}"]
    runs["report.md"] = ["report", "--format", "md", "-o", "-", "{corpus}"]
    return runs


def corpora() -> dict[str, Path]:
    """The two inputs: the shipped sample and the real archive (when present)."""
    archive = Path(os.environ.get("STRAT_TOOLS_GRAVON", REPO.parent / "shared" / "gravon"))
    return {"data": REPO / "data", "gravon": archive}


def run(args: list[str], corpus: Path, tmp: Path) -> bytes:
    """Run one command on ``corpus``; the report goes to a file in ``tmp``, the rest to stdout."""
    argv = []
    out_file = None
    for arg in args:
        if arg == "{corpus}":
            argv.append(str(corpus))
        elif arg == "-" and argv and argv[-1] == "-o":
            out_file = tmp / "report.md"
            argv.append(str(out_file))
        else:
            argv.append(arg)
    env = dict(os.environ, PYTHONPATH=str(REPO), MPLBACKEND="Agg")
    proc = subprocess.run(
        [sys.executable, "-m", "strat_tools", *argv, "--jobs", "2"],
        capture_output=True,
        env=env,
        cwd=REPO,
        check=False,
    )
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{argv}: exit {proc.returncode}: {proc.stderr.decode()[-2000:]}")
    data = out_file.read_bytes() if out_file is not None else proc.stdout
    return normalise(data, corpus)


def normalise(data: bytes, corpus: Path) -> bytes:
    """Write the corpus path as ``<corpus>``, the time as ``<time>``, pictures as ``<image>``.

    Pictures are compared by the numbers drawn in them (the tables beside them), not by
    their bytes, which change with matplotlib's version.
    """
    for form in sorted({str(corpus), str(corpus.resolve())}, key=len, reverse=True):
        data = data.replace(form.encode(), b"<corpus>")
    data = re.sub(rb"generated \d{4}-\d\d-\d\d \d\d:\d\d UTC", b"generated <time>", data)
    return re.sub(rb"data:image/[a-z+]+;base64,[A-Za-z0-9+/=]+", b"<image>", data)


def main() -> None:
    import tempfile

    for name, corpus in corpora().items():
        if not corpus.is_dir():
            print(f"skip {name}: {corpus} not found", file=sys.stderr)
            continue
        folder = HERE / name
        folder.mkdir(exist_ok=True)
        with tempfile.TemporaryDirectory() as tmp:
            for out, args in commands().items():
                data = run(args, corpus, Path(tmp))
                (folder / f"{out}.gz").write_bytes(gzip.compress(data, mtime=0))
                print(f"{name}/{out}: {len(data):,} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
