"""What ``strat-bench-move-v1`` is: its name, version and splits, shipped with the package.

The splits are whole Gravon monthly zips, never one game's plies apart. **Gravon's zip names
count months from 0**: ``strados2014-7.zip`` holds the games of August 2014, so every month
this package names is written both ways (:func:`calendar_month`).

The built benchmark folder ``DIR`` (``strat-tools bench build PATHS -o DIR``):

``DIR/manifest.json``
    ``benchmark`` (``"strat-bench-move-v1"``), ``version`` (1), ``strat_tools`` (the version
    that built it), ``month_note`` (the zero-based month names, said once), ``splits``: for
    each split name (``train``, ``val``, ``test``, then each ``--extra NAME``) its ``zips``
    (each ``{"name", "month", "sha256"}``), ``games`` and ``rows``; and ``games``: one entry
    per game of every split, ``{"game_id", "split", "view", "red_fingerprint",
    "red_mirror_fingerprint", "blue_fingerprint", "blue_mirror_fingerprint"}``, where
    ``view`` is ``"fresh"`` or ``"seen"`` for a test or extra split (fresh: neither setup, up
    to its mirror image, occurs in train) and ``null`` for train and val.
``DIR/<split>/observations/`` and ``DIR/<split>/games/``
    as the observations export writes them (``docs/observations.md``), classic valid games
    only; a split's views are read off the manifest.

Any change that can change a score makes a new version (v2), never an edit of v1.

>>> calendar_month("strados2014-7.zip")
'2014-08'
>>> [s.name for s in SPLITS]
['train', 'val', 'test']
>>> len(SPLITS[0].zips), SPLITS[2].zips[0].name
(18, 'strados2014-9.zip')
"""

from __future__ import annotations

import re
from dataclasses import dataclass

NAME = "strat-bench-move-v1"
"""The benchmark's name; its version is the number after ``-v``."""

VERSION = 1

MONTH_NOTE = (
    "Gravon's zip names count months from 0: strados2014-7.zip holds August 2014 "
    "(calendar month 2014-08)."
)

VIEWS = ("all", "fresh", "seen")
"""The views of a test (or extra) split: every game; the games neither of whose setups (a
mirror image counted as the same setup) occurs in train, the headline; and the rest."""


@dataclass(frozen=True)
class Zip:
    """One monthly Gravon archive of a split: its file name and the SHA-256 of its bytes."""

    name: str
    sha256: str

    @property
    def month(self) -> str:
        """The calendar month it holds, ``YYYY-MM`` (the zip name counts from 0)."""
        return calendar_month(self.name)


@dataclass(frozen=True)
class Split:
    """A split: its name and its zips, in calendar order."""

    name: str
    zips: tuple[Zip, ...]


_ZIP_NAME = re.compile(r"^strados(\d{4})-(\d{1,2})\.zip$")


def calendar_month(zip_name: str) -> str:
    """The calendar month (``YYYY-MM``) a Gravon zip holds: its name counts months from 0."""
    found = _ZIP_NAME.match(zip_name)
    if found is None or not 0 <= int(found.group(2)) <= 11:
        raise ValueError(f"not a Gravon monthly zip name: {zip_name!r}")
    return f"{found.group(1)}-{int(found.group(2)) + 1:02d}"


SPLITS: tuple[Split, ...] = (
    Split(
        "train",
        (
            Zip(
                "strados2004-11.zip",
                "9e4e4d08f29142efec51f59ac1b1c888e6bf5154a225a888dff542a9228b6a6e",
            ),
            Zip(
                "strados2005-1.zip",
                "46470be38d07b458dd15caa17009d76e5216e7f566640c70f5687ccd3d0b18e9",
            ),
            Zip(
                "strados2005-2.zip",
                "2160880c9bef42c372a3854b6ccb18614debe55fdcb3a6614c9f18a1f4f92d2c",
            ),
            Zip(
                "strados2005-3.zip",
                "a6bfcab3decb53f04563d985c36aea57f92e8d5a0a91ba0a30c0ef37c819dd01",
            ),
            Zip(
                "strados2005-4.zip",
                "9c6c900e26c2996e9c41c91ae2080108250106907babd13f10b0c9db67138935",
            ),
            Zip(
                "strados2005-5.zip",
                "0e20c4b5df4f9a4bf1ccf209fa28b66604437806a93be072d2b2e97b0dd5fc3e",
            ),
            Zip(
                "strados2005-6.zip",
                "5890fb81d83bc55422952ca6482dc5ee02cead05837cb96601c1129924fbed82",
            ),
            Zip(
                "strados2005-7.zip",
                "6b1b569aff3145c9d52714706cb36df7f370e44e3058cab81722568babbfefe4",
            ),
            Zip(
                "strados2005-8.zip",
                "25ceb979136719c87881c0f80e1045536d3ef893a9710a2825fccf31b1cc643f",
            ),
            Zip(
                "strados2013-10.zip",
                "c5e3657e21dc2dd2e39b2a4dc509bc7a82f84be838fd27fbffea7dd2b506b521",
            ),
            Zip(
                "strados2013-11.zip",
                "d091bac0ccc0a83f1cdd7ab45714b0f5f5581f09757b77b829ac66b6b49a14df",
            ),
            Zip(
                "strados2014-0.zip",
                "95c3a10a5c66678b34cce0aa8b95af0bbf834d87e175e7b0fa9dc2497541f7bc",
            ),
            Zip(
                "strados2014-1.zip",
                "1aa98a19e5323ce6e318258225c7af84b7cb607f19907b6aa0f66133c4da6a50",
            ),
            Zip(
                "strados2014-2.zip",
                "a8abea91d4e1ebc9475b64b76ac3c228154933e56a4bfd56569d0ffe34f1b99f",
            ),
            Zip(
                "strados2014-3.zip",
                "c07fd9507131e55d1670bab96e205be257eb550dde0a4fe5db1de38ba2be1669",
            ),
            Zip(
                "strados2014-4.zip",
                "db8e9d17f5c8b3e6f707fbdbf2323f651798cf7bafdeb4a8a0a9ce629f33c10a",
            ),
            Zip(
                "strados2014-5.zip",
                "f0612a5428e11a8872fd06bc76b0491aa2030d0e9fdfd849f0af52a452ab17ac",
            ),
            Zip(
                "strados2014-6.zip",
                "89b35cf8d3ee2203777a56f017b618749837c63445c6fc8d536049e0c6f8e252",
            ),
            # strados2005-0.zip (January 2005) is not in Gravon's archive: the train split
            # holds the months Gravon published between November 2004 and June 2014.
        ),
    ),
    Split(
        "val",
        (
            Zip(
                "strados2014-7.zip",
                "a22e18934933ddec93376695b365416455110af23e911e63dc888b665c5d611b",
            ),
            Zip(
                "strados2014-8.zip",
                "b40895b1b0bd8a871314471ac5311511ebb228101b6924686dad06838edd2440",
            ),
        ),
    ),
    Split(
        "test",
        (
            Zip(
                "strados2014-9.zip",
                "3ec1c424fcff765156c66f37cd76f6879f5ee6fc4bbc53bbfa12944a7d27fbcc",
            ),
            Zip(
                "strados2014-10.zip",
                "dcacb07af9b36b95ffd65761a1b9cdb9e75e19196cb073e75c4ee4fe0fc5af9e",
            ),
            Zip(
                "strados2014-11.zip",
                "33424139cd8719b0fe8d1ce5788ad70f3d20d39ce84ba79e14ab341d3b4ce81f",
            ),
        ),
    ),
)
"""The three splits of v1 and their zips. Train: the zips ``strados2004-11`` ..
``strados2005-8`` and ``strados2013-10`` .. ``strados2014-6`` (December 2004 to September
2005, November 2013 to July 2014); val: ``strados2014-7``, ``strados2014-8`` (August and
September 2014); test: ``strados2014-9`` .. ``strados2014-11`` (October to December 2014)."""
