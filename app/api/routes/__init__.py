"""The web app's routers, one per resource."""
