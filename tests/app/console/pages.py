"""Reading the console's rendered HTML in tests."""

from __future__ import annotations


def row_html(page: str, incident_id: str) -> str:
    """The queue row of one incident in a rendered queue page."""
    start = page.index(f'data-id="{incident_id}"')
    return page[start : page.index("</tr>", start)]


def action_data(incident_id: str, offered: str = "", **fields: object) -> list[object]:
    """An incident action's inputs over Gradio's API: the incident, the state it was offered in, then the form
    (`app.console.incident_forms.FORM_FIELDS`), empty but for `fields`."""
    from app.console.incident_forms import FORM_FIELDS

    empty: dict[str, object] = {
        name: None if name in ("level", "units", "disposition", "card_choice") else "" for name in FORM_FIELDS
    }
    unknown = set(fields) - set(empty)
    assert not unknown, unknown
    return [incident_id, offered, *{**empty, **fields}.values()]
