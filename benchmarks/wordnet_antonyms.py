"""Write src/citeloom/resources/antonyms.txt, the word pairs check reads as opposites, from
WordNet 3.0.

check calls a claim `mismatch` when it puts a word where the page's sentence has its opposite
("a large effect" against "the effect is small"; domain.antonyms). The pairs are WordNet's
direct antonyms between single words (its "!" pointers, 3,312 pairs), taken once here from the
data files Debian's `wordnet-base` installs, so that citeloom itself needs neither the package
nor a WordNet reader at run time. Run after `apt-get install wordnet-base`:

    .venv/bin/python benchmarks/wordnet_antonyms.py [--wordnet /usr/share/wordnet]
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "citeloom" / "resources" / "antonyms.txt"
POS_FILES = {"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}
# pairs that are no opposition of a fact in a scholarly sentence: "like" is mostly a
# preposition, and an ordinal's rival is the qualifiers' slot (domain.qualifiers)
LEFT_OUT = {("like", "unlike"), ("first", "second"), ("first", "last")}

HEADER = """\
# Direct antonyms between single words, one pair a line, from WordNet 3.0
# (benchmarks/wordnet_antonyms.py over Debian's wordnet-base; read by domain.antonyms),
# under the WordNet 3.0 license:
#
# This software and database is being provided to you, the LICENSEE, by
# Princeton University under the following license.  By obtaining, using
# and/or copying this software and database, you agree that you have
# read, understood, and will comply with these terms and conditions.:
#
# Permission to use, copy, modify and distribute this software and
# database and its documentation for any purpose and without fee or
# royalty is hereby granted, provided that you agree to comply with
# the following copyright notice and statements, including the disclaimer,
# and that the same appear on ALL copies of the software, database and
# documentation, including modifications that you make for internal
# use or for distribution.
#
# WordNet 3.0 Copyright 2006 by Princeton University.  All rights reserved.
#
# THIS SOFTWARE AND DATABASE IS PROVIDED "AS IS" AND PRINCETON
# UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES, EXPRESS OR
# IMPLIED.  BY WAY OF EXAMPLE, BUT NOT LIMITATION, PRINCETON
# UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES OF MERCHANT-
# ABILITY OR FITNESS FOR ANY PARTICULAR PURPOSE OR THAT THE USE
# OF THE LICENSED SOFTWARE, DATABASE OR DOCUMENTATION WILL NOT
# INFRINGE ANY THIRD PARTY PATENTS, COPYRIGHTS, TRADEMARKS OR
# OTHER RIGHTS.
#
# The name of Princeton University or Princeton may not be used in
# advertising or publicity pertaining to distribution of the software
# and/or database.  Title to copyright in this software, database and
# any associated documentation shall at all times remain with
# Princeton University and LICENSEE agrees to preserve same.
"""


def synsets(folder: Path, pos: str) -> dict[tuple[str, str], tuple[list[str], list[tuple]]]:
    """(pos, offset) -> (its words, its pointers) of one WordNet data file."""
    out = {}
    for line in (folder / f"data.{pos}").read_text(encoding="latin-1").splitlines():
        if line.startswith("  "):  # the licence at the top of the file
            continue
        fields = line.split(" | ")[0].split()
        count = int(fields[3], 16)
        words = [re.sub(r"\(.*\)$", "", fields[4 + 2 * i]).lower() for i in range(count)]
        k = 4 + 2 * count
        pointers = []
        for _ in range(int(fields[k])):
            symbol, offset, their_pos, source_target = fields[k + 1 : k + 5]
            k += 4
            pointers.append(
                (symbol, offset, their_pos, int(source_target[:2], 16), int(source_target[2:], 16))
            )
        out[(pos, fields[0])] = (words, pointers)
    return out


def antonym_pairs(folder: Path) -> list[tuple[str, str]]:
    every = {}
    for pos in ("adj", "adv", "noun", "verb"):
        every.update(synsets(folder, pos))
    pairs = set()
    for (_, _), (words, pointers) in every.items():
        for symbol, offset, their_pos, source, target in pointers:
            if symbol != "!" or not source or not target:
                continue
            a = words[source - 1]
            b = every[(POS_FILES[their_pos], offset)][0][target - 1]
            pair = tuple(sorted((a, b)))
            if a.isalpha() and b.isalpha() and pair not in LEFT_OUT:
                pairs.add(pair)
    return sorted(pairs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--wordnet", type=Path, default=Path("/usr/share/wordnet"))
    args = parser.parse_args()
    pairs = antonym_pairs(args.wordnet)
    OUT.write_text(HEADER + "".join(f"{a} {b}\n" for a, b in pairs), encoding="utf-8")
    print(f"{len(pairs)} pairs -> {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
