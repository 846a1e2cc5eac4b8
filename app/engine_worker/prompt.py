"""The engine's prompt for an incident, in the model's tokens: the guidance messages through the tokenizer."""

from __future__ import annotations

from typing import Any

from app.guidance.cards import Card
from app.guidance.prompt import guidance_messages


class GuidancePrompt:
    """Builds an incident's prompt with the model's tokenizer (its chat template when it has one, else plain text),
    at most `max_tokens` long, and decodes the guidance tokens back to text."""

    def __init__(self, tokenizer: Any, max_tokens: int) -> None:
        self.tokenizer = tokenizer
        self.max_tokens = max_tokens
        added = getattr(tokenizer, "added_tokens_encoder", None) or {}
        self.special_tokens = [*getattr(tokenizer, "all_special_tokens", []), *added]
        """Removed from the call's text: a caller cannot inject the template's markers."""

    def build(self, text: str, esi_level: int, flags: list[str], card: Card | None, language: str) -> list[int]:
        """The prompt's token ids; a longer prompt keeps the instructions' start and the call's end."""
        messages = guidance_messages(text, esi_level, flags, self.special_tokens, card=card, language=language)
        if getattr(self.tokenizer, "chat_template", None):
            ids = self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
            if isinstance(ids, dict) or hasattr(ids, "keys"):
                ids = ids["input_ids"]
            prompt = [int(token) for token in ids]
        else:
            plain = "\n\n".join(message["content"] for message in messages) + "\n\nGUIDANCE:\n"
            prompt = [int(token) for token in self.tokenizer(plain)["input_ids"]]
        if len(prompt) > self.max_tokens:
            keep = self.max_tokens
            prompt = prompt[: keep // 2] + prompt[-(keep - keep // 2) :]
        return prompt

    def decode(self, tokens: list[int]) -> str:
        """The guidance text of `tokens`, without special tokens."""
        text: str = self.tokenizer.decode(tokens, skip_special_tokens=True)
        return text
