"""What intake does to a message's strings: drop what no database stores, refuse text the classifier would refuse."""

from __future__ import annotations

import re

from triage_models.text import InvalidMessageError, coerce_text

EMPTY_TEXT_REASON = "empty once spaces, control and invisible characters are removed"
"""Why a text is refused when the classifier's cleaning (`coerce_text`) leaves nothing to triage."""

# PostgreSQL's text columns refuse NUL (SQLite takes it) and neither database can encode a lone surrogate: both
# are removed, so that the same message is stored the same way on both databases.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def storable(value: str) -> str:
    """`value` without NUL and lone surrogates; everything else kept as sent."""
    return _UNSTORABLE.sub("", value)


def is_triageable(text: str) -> bool:
    """True when the classifier's own cleaning leaves something to triage: what intake accepts, `classify` takes."""
    try:
        coerce_text(text)
    except InvalidMessageError:
        return False
    return True
