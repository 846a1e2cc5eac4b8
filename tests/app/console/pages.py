"""Reading the console's rendered HTML in tests."""

from __future__ import annotations


def row_html(page: str, incident_id: str) -> str:
    """The queue row of one incident in a rendered queue page."""
    start = page.index(f'data-id="{incident_id}"')
    return page[start : page.index("</tr>", start)]
