"""The dispatcher console: Gradio on the FastAPI app, sign-in with database accounts."""
