"""Protocol cards: fixed, versioned, reviewable pre-arrival instructions kept as TOML data beside this package."""

from app.guidance.cards.library import CardLibrary, age_band, default_library, load_library
from app.guidance.cards.model import NOT_REVIEWED, Card, CardError, read_card

__all__ = [
    "NOT_REVIEWED",
    "Card",
    "CardError",
    "CardLibrary",
    "age_band",
    "default_library",
    "load_library",
    "read_card",
]
