"""Reading the command line's output in tests independently of the terminal's width."""

from __future__ import annotations

import re

_BOX = re.compile(r"[\u2500-\u257f]")


def plain(output: str) -> str:
    """The words of the output on one line: the error box's drawing characters and every line break and run of
    spaces (where the box wraps at its width) become one space, so an assertion cannot depend on the width or on
    where a long path pushed a wrap."""
    return " ".join(_BOX.sub(" ", output).split())


def contains(output: str, phrase: str) -> bool:
    """Whether `phrase` is in the output, wherever the box wrapped it: the phrase's own spaces may fall on a wrap,
    and a wrap may fall inside a long word of it (a path)."""
    return re.sub(r"\s+", "", phrase) in re.sub(r"\s+", "", plain(output))
