"""The timestamped calls `bench live` replays: both tracks, partials before each final utterance, arrests whose
decisive words come only after the call-taker's questions, look-alikes that are not arrests, English and Spanish.
Written for the bench (no real call): 11 scripts, each replayed as several calls with their own ids."""

from __future__ import annotations

from dataclasses import dataclass

CT, C = "call_taker", "caller"


@dataclass(frozen=True, slots=True)
class Utterance:
    offset_s: float
    track: str
    text: str


@dataclass(frozen=True, slots=True)
class CallScript:
    """One call: its utterances; `decisive` the index of the utterance after which it is an arrest (None: not one)."""

    name: str
    language: str
    utterances: tuple[Utterance, ...]
    decisive: int | None

    @property
    def arrest(self) -> bool:
        return self.decisive is not None


def _script(name: str, language: str, lines: list[tuple[float, str, str]], decisive: int | None) -> CallScript:
    return CallScript(name, language, tuple(Utterance(*line) for line in lines), decisive)


SCRIPTS = (
    _script("arrest-asked-en", "en", [
        (1.0, CT, "911, what is the address of your emergency?"),
        (4.0, C, "It's 1420 Maple Avenue, please hurry."),
        (7.0, CT, "Tell me exactly what happened."),
        (10.0, C, "My husband just fell over in the kitchen."),
        (13.0, CT, "Is he awake? Is he breathing normally?"),
        (16.0, C, "No, he's not breathing, he's not answering me."),
        (20.0, CT, "Put him flat on his back and kneel beside him."),
        (34.0, CT, "Push hard and fast in the center of the chest."),
        (40.0, C, "Okay, I'm pushing."),
    ], 5),
    _script("arrest-gasping-en", "en", [
        (1.0, CT, "911, where is your emergency?"),
        (4.0, C, "We're at 22 Oak Street, apartment 4."),
        (8.0, CT, "What's going on there?"),
        (11.0, C, "My mom collapsed, she's kind of snoring and her lips are blue."),
        (15.0, CT, "Is she breathing normally?"),
        (18.0, C, "No, she's gasping, she's not breathing right."),
        (24.0, CT, "Push hard and fast in the middle of her chest."),
    ], 5),
    _script("arrest-asked-es", "es", [
        (1.0, CT, "911, ¿cuál es la dirección de su emergencia?"),
        (5.0, C, "Estoy en calle Olivo 25, en Pasadena."),
        (9.0, CT, "¿Qué pasó?"),
        (12.0, C, "Mi esposo se cayó en la sala."),
        (15.0, CT, "¿Está despierto? ¿Respira normalmente?"),
        (19.0, C, "No, no respira, no responde."),
        (26.0, CT, "Empuje fuerte y rápido en el centro del pecho."),
    ], 5),
    _script("arrest-child-en", "en", [
        (1.0, CT, "911, what's the address?"),
        (3.0, C, "5 Cedar Lane, my son, my son!"),
        (6.0, CT, "How old is he and what happened?"),
        (9.0, C, "He's four, he was in the pool, we pulled him out."),
        (12.0, CT, "Is he breathing?"),
        (14.0, C, "He's not breathing, he's blue."),
        (22.0, CT, "Push down hard on the center of his chest."),
    ], 5),
    _script("arrest-pulse-es", "es", [
        (1.0, CT, "911, ¿dónde está la emergencia?"),
        (4.0, C, "Avenida Central 300."),
        (7.0, CT, "Dígame qué pasa."),
        (10.0, C, "Mi papá se desmayó y no le encuentro el pulso."),
        (14.0, CT, "¿Respira?"),
        (17.0, C, "No respira."),
    ], 4),
    _script("fainted-breathing-en", "en", [
        (1.0, CT, "911, what is the address of your emergency?"),
        (4.0, C, "300 Pine Road."),
        (7.0, CT, "What happened?"),
        (10.0, C, "My wife fainted in the heat but she's breathing and talking now."),
        (14.0, CT, "Is she breathing normally?"),
        (17.0, C, "Yes, she's breathing fine, she's sitting up."),
    ], None),
    _script("seizure-en", "en", [
        (1.0, CT, "911, where are you?"),
        (3.0, C, "At the mall on Fifth Street, by the food court."),
        (7.0, CT, "What's happening?"),
        (10.0, C, "A man is having a seizure, he's shaking on the floor."),
        (14.0, CT, "Is he breathing?"),
        (17.0, C, "Yes, he's breathing, the shaking is stopping."),
    ], None),
    _script("ankle-es", "es", [
        (1.0, CT, "911, ¿cuál es su dirección?"),
        (4.0, C, "Calle Luna 8."),
        (7.0, CT, "¿Qué le pasó?"),
        (10.0, C, "Me torcí el tobillo jugando fútbol, me duele mucho."),
        (14.0, CT, "¿Puede caminar?"),
        (16.0, C, "Un poco, con ayuda."),
    ], None),
    _script("chest-pain-en", "en", [
        (1.0, CT, "911, what's the address of your emergency?"),
        (4.0, C, "18 Willow Court."),
        (7.0, CT, "What's the problem?"),
        (10.0, C, "My dad has chest pain and he's sweating a lot."),
        (14.0, CT, "Is he awake and breathing?"),
        (17.0, C, "Yes, he's awake, he's breathing but it hurts."),
    ], None),
    _script("drunk-asleep-en", "en", [
        (1.0, CT, "911, where is your emergency?"),
        (4.0, C, "Behind the bar on Main Street."),
        (7.0, CT, "What's going on?"),
        (10.0, C, "There's a guy passed out drunk on the bench, he's snoring loudly."),
        (14.0, CT, "Is he breathing normally?"),
        (17.0, C, "Yeah he's breathing fine, he just won't wake up."),
    ], None),
    _script("callback-en", "en", [
        (1.0, CT, "911, what is the address of your emergency?"),
        (3.0, C, "77 Spruce Street."),
        (5.0, CT, "What's the number you're calling from?"),
        (8.0, C, "Five five five, two one two, four seven eight nine."),
        (11.0, CT, "What's happening?"),
        (13.0, C, "My grandmother cut her hand in the kitchen, it's bleeding a little."),
    ], None),
)  # fmt: skip


def partial_of(text: str) -> str:
    """What a transcription system shows before an utterance is final: its first half of the words."""
    words = text.split()
    return " ".join(words[: max(1, len(words) // 2)])
