"""Seeded generator of labelled 911/EMS call-taker messages: the training data the project owns.

Three message styles (a caller's words as transcribed, a crew's radio report, a nurse-line note), scenarios for
every ESI level and decision point, varied wording, typos, negated distractors ("denies chest pain") and vital
signs that are normal, in the danger zone, or extreme, as the scenario implies. Each message also carries a
reference answer length (tokens of dispatcher guidance) for the length predictor. See docs/triage.md.
"""

from __future__ import annotations

import csv
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

GENERATOR_VERSION = "gen-2026.11.1"


@dataclass(frozen=True, slots=True)
class Scenario:
    """One kind of call: its level, the ESI decision point that sets it, how it is described."""

    name: str
    esi_level: int
    decision_point: str
    complaints: tuple[str, ...]
    details: tuple[str, ...] = ()
    vitals: str = "normal"
    """normal | danger | extreme | none: what vital signs, if reported, look like."""
    ages: tuple[int, int] = (18, 90)
    answer_tokens: tuple[int, int] = (120, 220)
    female_only: bool = False


SCENARIOS: tuple[Scenario, ...] = (
    # ESI 1, decision point A: needs a life-saving intervention now.
    Scenario(
        "cardiac-arrest",
        1,
        "A",
        (
            "{he} collapsed and is not breathing, {he} has no pulse",
            "{he} is not breathing and we started CPR",
            "{he} went down and {his} heart stopped, bystanders doing CPR",
            "found {him} pulseless on the floor",
        ),
        ("{he} was fine a minute ago", "AED is on the way", "{he} is turning blue"),
        "none",
        (30, 90),
        (320, 460),
    ),
    Scenario(
        "not-breathing",
        1,
        "A",
        (
            "{he} stopped breathing",
            "{he} is gasping, agonal breathing",
            "{he} is barely breathing and {his} lips are blue",
            "{he} isn't breathing right, just gasping every few seconds",
        ),
        ("{he} took something, we don't know what", "{he} was choking on food"),
        "none",
        (1, 90),
        (300, 440),
    ),
    Scenario(
        "unresponsive",
        1,
        "A",
        (
            "{he} is unresponsive",
            "{he} won't wake up, {he} is unconscious",
            "{he} is not responding to anything",
            "found {him} unresponsive in bed, breathing shallow",
            "{he} only responds to pain",
        ),
        ("empty pill bottles next to {him}", "{he} is diabetic", "{he} hit {his} head"),
        "extreme",
        (15, 95),
        (280, 420),
    ),
    Scenario(
        "choking",
        1,
        "A",
        (
            "{he} is choking and can't breathe",
            "{he} choked on a piece of meat, can't talk",
            "something is stuck in {his} throat and {he} is turning blue",
        ),
        ("back blows aren't working", "{he} is grabbing {his} throat"),
        "none",
        (1, 90),
        (300, 420),
    ),
    Scenario(
        "severe-bleeding",
        1,
        "A",
        (
            "{he} is bleeding heavily from {his} leg and it won't stop",
            "there is blood everywhere, {he} cut {his} arm with a chainsaw",
            "{he} is bleeding out, blood spurting from {his} thigh",
            "traumatic amputation of {his} hand at work",
        ),
        ("we're holding a towel on it", "{he} looks very pale"),
        "extreme",
        (16, 80),
        (300, 420),
    ),
    Scenario(
        "anaphylaxis",
        1,
        "A",
        (
            "{he} ate peanuts and {his} throat is closing",
            "bee sting and now {his} tongue is swelling and {he} can barely breathe",
            "{he} is having an anaphylactic reaction",
        ),
        ("{he} used {his} epipen", "{he} has hives all over"),
        "extreme",
        (5, 70),
        (300, 420),
    ),
    Scenario(
        "status-seizure",
        1,
        "A",
        (
            "{he} is still seizing, it's been ten minutes",
            "{he} has been convulsing continuously and won't stop",
            "seizure won't stop, {he} is blue around the lips",
        ),
        ("{he} has epilepsy", "first seizure ever"),
        "none",
        (1, 80),
        (300, 420),
    ),
    Scenario(
        "drowning-hanging",
        1,
        "A",
        (
            "we pulled {him} out of the pool, {he} was drowning",
            "found {him} hanging in the garage",
            "{he} was electrocuted by a power line",
        ),
        ("{he} is not moving",),
        "none",
        (3, 70),
        (320, 440),
    ),
    Scenario(
        "shock-trauma",
        1,
        "A",
        (
            "car crash, driver trapped and unconscious",
            "{he} was shot in the chest and is barely breathing",
            "motorcycle crash, rider unresponsive",
        ),
        ("airbags deployed", "lots of blood"),
        "extreme",
        (16, 70),
        (320, 460),
    ),
    # ESI 2, decision point B: high risk, confusion/lethargy, severe pain or distress.
    Scenario(
        "stroke",
        2,
        "B",
        (
            "{his} face is drooping and {his} speech is slurred",
            "{he} suddenly can't move {his} right arm and is talking funny",
            "I think {he} is having a stroke, left side is weak",
            "sudden numbness on one side and trouble speaking",
        ),
        ("started about 30 minutes ago", "{he} takes blood pressure pills", "last seen normal an hour ago"),
        "normal",
        (45, 95),
        (240, 340),
    ),
    Scenario(
        "chest-pain-acs",
        2,
        "B",
        (
            "{he} has crushing chest pain radiating to {his} left arm",
            "chest pressure and {he} is sweating and nauseous",
            "{he} has chest pain and shortness of breath, history of heart attack",
            "{he} says it feels like an elephant on {his} chest, {he} is clammy",
        ),
        ("{he} took an aspirin", "pain started while shoveling snow"),
        "normal",
        (40, 90),
        (240, 340),
    ),
    Scenario(
        "suicidal",
        2,
        "B",
        (
            "{he} says {he} wants to kill {himself}",
            "{he} is suicidal and has a plan",
            "{he} cut {his} wrists, bleeding is controlled",
            "{he} is threatening to end {his} life",
        ),
        ("{he} has been drinking", "there are guns in the house"),
        "none",
        (14, 80),
        (220, 320),
    ),
    Scenario(
        "overdose-awake",
        2,
        "B",
        (
            "{he} took a whole bottle of pills about an hour ago",
            "{he} overdosed on heroin, we gave narcan and {he} is awake now",
            "{he} swallowed all of {his} mother's medication",
        ),
        ("{he} is drowsy", "{he} is vomiting"),
        "danger",
        (14, 70),
        (220, 320),
    ),
    Scenario(
        "respiratory-distress",
        2,
        "B",
        (
            "{he} is having a severe asthma attack and can only speak a few words",
            "{he} is struggling to breathe, the inhaler isn't helping",
            "{he} can't catch {his} breath and is wheezing badly",
            "{he} has really bad shortness of breath and COPD",
        ),
        ("{his} lips look a little dusky", "{he} is sitting up leaning forward"),
        "danger",
        (5, 85),
        (240, 340),
    ),
    Scenario(
        "altered-mental-status",
        2,
        "B",
        (
            "{he} is confused and doesn't know where {he} is",
            "{he} has been very lethargic and hard to wake since this morning",
            "{he} is disoriented and not making sense, this is new",
            "{he} passed out briefly and is now confused",
        ),
        ("{he} has a fever", "{he} is diabetic"),
        "danger",
        (60, 95),
        (220, 320),
    ),
    Scenario(
        "severe-pain",
        2,
        "B",
        (
            "{he} has the worst headache of {his} life, came on suddenly",
            "{he} is screaming in pain from {his} side, pain 10 out of 10",
            "excruciating abdominal pain, {he} can't sit still",
            "severe pain in {his} back, 9/10, and {he} looks pale",
        ),
        ("{he} vomited twice",),
        "normal",
        (20, 80),
        (220, 320),
    ),
    Scenario(
        "penetrating-trauma",
        2,
        "B",
        (
            "{he} was stabbed in the arm, bleeding is controlled",
            "{he} got shot in the leg, {he} is awake and talking",
            "{he} fell off a ladder from the roof and hurt {his} back",
            "pedestrian struck by a car, {he} is conscious",
        ),
        ("police are on scene", "{he} can move {his} toes"),
        "normal",
        (16, 80),
        (240, 340),
    ),
    Scenario(
        "pregnancy-emergency",
        2,
        "B",
        (
            "she is pregnant and bleeding",
            "the baby is coming, I can see the head crowning",
            "she is 30 weeks pregnant with bad headache and blurry vision",
        ),
        ("her water broke", "this is her third baby"),
        "none",
        (18, 42),
        (260, 380),
        female_only=True,
    ),
    Scenario(
        "head-injury-anticoag",
        2,
        "B",
        (
            "{he} fell and hit {his} head, {he} is on blood thinners",
            "{he} hit {his} head and was knocked out for a minute",
            "head injury after a fall and now {he} is vomiting",
        ),
        ("{he} takes warfarin", "{he} has a bump on {his} forehead"),
        "normal",
        (60, 95),
        (220, 320),
    ),
    Scenario(
        "diabetic-emergency",
        2,
        "B",
        (
            "{his} blood sugar is 38 and {he} is shaky and sweaty",
            "{he} is diabetic and acting strange, sugar is very low",
            "{he} has DKA symptoms, vomiting and breathing fast",
        ),
        ("{he} took insulin and didn't eat",),
        "danger",
        (10, 85),
        (220, 320),
    ),
    Scenario(
        "danger-vitals",
        2,
        "D",
        (
            "{he} feels weak and dizzy",
            "{he} has had a fever and cough for three days",
            "{he} has had diarrhea all day and feels faint",
            "{he} is just not feeling well, very tired",
        ),
        ("{he} looks unwell", "{he} can't keep fluids down"),
        "danger-always",
        (20, 95),
        (200, 300),
    ),
    Scenario(
        "infant-fever",
        2,
        "B",
        (
            "my newborn has a fever of 38.4",
            "the baby is 2 weeks old and has a fever and won't feed",
        ),
        ("the baby is sleepy",),
        "none",
        (0, 0),
        (220, 320),
    ),
    # ESI 3, decision point C: stable, needs two or more resources.
    Scenario(
        "abdominal-pain",
        3,
        "C",
        (
            "{he} has abdominal pain and has vomited a few times",
            "pain in the right lower belly since last night",
            "{he} has stomach pain that is getting worse, pain 6/10",
            "upper belly pain after eating, with nausea",
        ),
        ("no blood in the vomit", "{he} has a low grade fever"),
        "normal",
        (16, 85),
        (160, 260),
    ),
    Scenario(
        "fall-hip",
        3,
        "C",
        (
            "{he} fell and can't put weight on {his} hip",
            "{he} slipped in the bathroom and {his} hip hurts a lot",
            "elderly {person} fell, pain in {his} hip and leg is shortened",
        ),
        ("{he} did not hit {his} head", "no loss of consciousness"),
        "normal",
        (65, 95),
        (160, 260),
    ),
    Scenario(
        "pneumonia-like",
        3,
        "C",
        (
            "{he} has had a fever and productive cough for several days",
            "cough, fever and chills, feels short of breath when walking",
        ),
        ("{he} is eating less",),
        "normal",
        (50, 90),
        (160, 260),
    ),
    Scenario(
        "dehydration",
        3,
        "C",
        (
            "{he} has been vomiting and has diarrhea for two days",
            "{he} can't keep anything down since yesterday",
        ),
        ("{he} is still urinating",),
        "normal",
        (5, 85),
        (150, 240),
    ),
    Scenario(
        "kidney-stone",
        3,
        "C",
        (
            "{he} has flank pain and blood in {his} urine",
            "{he} thinks it's a kidney stone again, pain 6 out of 10",
        ),
        ("{he} had one last year",),
        "normal",
        (25, 70),
        (150, 240),
    ),
    Scenario(
        "complex-laceration",
        3,
        "C",
        (
            "{he} cut {his} hand on glass and can't bend {his} finger",
            "deep cut on {his} leg from a fall, bleeding controlled with pressure",
        ),
        ("bleeding is controlled",),
        "normal",
        (16, 80),
        (150, 240),
    ),
    Scenario(
        "mild-sob",
        3,
        "C",
        (
            "{he} has some trouble breathing with exertion, improved with the inhaler",
            "{he} has a cough and mild wheezing for a day",
        ),
        ("{he} is talking in full sentences",),
        "normal",
        (10, 80),
        (150, 240),
    ),
    # ESI 4: one resource.
    Scenario(
        "ankle-injury",
        4,
        "C",
        (
            "{he} twisted {his} ankle playing soccer",
            "{he} rolled {his} ankle on the stairs and it's swollen",
            "{he} hurt {his} wrist falling off a bike",
        ),
        ("{he} can walk a little", "no other injuries"),
        "normal",
        (8, 70),
        (100, 190),
    ),
    Scenario(
        "simple-laceration",
        4,
        "C",
        (
            "{he} cut {his} finger while cooking, might need stitches",
            "small cut on {his} chin from a fall, bleeding has stopped",
        ),
        ("the wound is about an inch long",),
        "normal",
        (3, 80),
        (100, 180),
    ),
    Scenario(
        "urinary",
        4,
        "C",
        (
            "{he} has burning when urinating for two days",
            "{he} thinks {he} has a urinary tract infection",
        ),
        ("no fever",),
        "normal",
        (18, 70),
        (90, 170),
    ),
    Scenario(
        "sore-throat-fever",
        4,
        "C",
        (
            "{he} has a sore throat and fever, might be strep",
            "ear pain since yesterday",
        ),
        ("{he} is drinking fine",),
        "normal",
        (3, 50),
        (90, 170),
    ),
    Scenario(
        "eye-foreign-body",
        4,
        "C",
        (
            "{he} got something in {his} eye at work",
            "{his} eye is red and irritated after grinding metal",
        ),
        ("vision is normal",),
        "normal",
        (18, 65),
        (90, 170),
    ),
    # ESI 5: no resources.
    Scenario(
        "refill",
        5,
        "C",
        (
            "{he} ran out of {his} blood pressure medication and needs a refill",
            "{he} needs a prescription refill for {his} inhaler",
        ),
        ("{he} feels fine otherwise",),
        "none",
        (25, 85),
        (60, 130),
    ),
    Scenario(
        "cold-symptoms",
        5,
        "C",
        (
            "{he} has a runny nose and mild cough for a few days",
            "{he} has cold symptoms and wants advice",
        ),
        ("{he} is eating and drinking normally",),
        "normal",
        (3, 70),
        (60, 130),
    ),
    Scenario(
        "minor-skin",
        5,
        "C",
        (
            "{he} has a small itchy rash on {his} arm",
            "{he} has a bug bite that is a little red",
            "{he} needs {his} stitches removed",
            "{he} has a splinter in {his} finger",
        ),
        ("no swelling",),
        "none",
        (3, 80),
        (60, 130),
    ),
    Scenario(
        "question",
        5,
        "C",
        (
            "{he} has a question about {his} medication dose",
            "{he} bumped {his} knee yesterday and has a small bruise",
            "mild toothache since last week",
        ),
        ("{he} is walking normally",),
        "none",
        (18, 85),
        (50, 120),
    ),
)

ESI_LEVELS = (1, 2, 3, 4, 5)
LEVEL_WEIGHTS = (0.10, 0.25, 0.30, 0.20, 0.15)
"""Share of each level among generated messages (ESI 1-2 over-represented so the rare levels are learned)."""

DISTRACTORS = (
    "denies chest pain",
    "no trouble breathing",
    "not bleeding",
    "no loss of consciousness",
    "breathing normally",
    "alert and talking",
    "no fever",
    "denies shortness of breath",
    "no allergies",
    "not confused",
    "no head injury",
    "not pregnant",
)
PEOPLE = (
    (
        "he",
        "him",
        "his",
        "himself",
        "man",
        ("my husband", "my father", "my son", "a man", "my neighbor", "the patient"),
    ),
    (
        "she",
        "her",
        "her",
        "herself",
        "woman",
        ("my wife", "my mother", "my daughter", "a woman", "my neighbor", "the patient"),
    ),
)


def _vitals(kind: str, rng: random.Random, age: int) -> str:
    """Reported vital signs: normal ones, or with one or two in the danger zone, or one extreme."""
    if kind == "none" or (kind != "danger-always" and rng.random() < 0.35):
        return ""
    kind = "danger" if kind == "danger-always" else kind
    child = age <= 8
    values = {
        "hr": rng.randint(70, 110) if child else rng.randint(60, 98),
        "rr": rng.randint(18, 26) if child else rng.randint(12, 19),
        "spo2": rng.randint(95, 100),
        "sbp": rng.randint(100, 150),
        "temp": round(rng.uniform(36.2, 37.6), 1),
    }
    abnormal: set[str] = set()
    if kind == "danger":
        for which in rng.sample(("hr", "rr", "spo2", "sbp"), rng.randint(1, 2)):
            abnormal.add(which)
            values[which] = {
                "hr": rng.randint(165, 185) if child else rng.randint(104, 145),
                "rr": rng.randint(42, 55) if child else rng.randint(22, 32),
                "spo2": rng.randint(87, 91),
                "sbp": rng.randint(75, 88),
            }[which]
    elif kind == "extreme":
        which = rng.choice(("hr", "spo2", "sbp"))
        abnormal.add(which)
        values[which] = {
            "hr": rng.choice((rng.randint(185, 210), rng.randint(28, 38))),
            "spo2": rng.randint(70, 83),
            "sbp": rng.randint(55, 68),
        }[which]
    dbp = rng.randint(45, 60) if values["sbp"] < 90 else rng.randint(60, 95)
    wording = {
        "hr": rng.choice((f"HR {values['hr']}", f"pulse {values['hr']}", f"heart rate {values['hr']}")),
        "sbp": rng.choice((f"BP {values['sbp']}/{dbp}", f"blood pressure {values['sbp']}/{dbp}")),
        "rr": rng.choice((f"RR {values['rr']}", f"resp {values['rr']}")),
        "spo2": rng.choice((f"SpO2 {values['spo2']}%", f"sats {values['spo2']}%", f"O2 sat {values['spo2']}")),
        "temp": rng.choice((f"temp {values['temp']}", f"T {values['temp']}")),
    }
    normal = [name for name in wording if name not in abnormal]
    shown = sorted(abnormal) + rng.sample(normal, rng.randint(max(0, 2 - len(abnormal)), len(normal)))
    rng.shuffle(shown)
    return ", ".join(wording[name] for name in shown)


def _typos(text: str, rng: random.Random) -> str:
    words = text.split(" ")
    for _ in range(rng.randint(1, 2)):
        index = rng.randrange(len(words))
        word = words[index]
        if len(word) < 5 or any(ch.isdigit() for ch in word):
            continue
        position = rng.randrange(1, len(word) - 2)
        if rng.random() < 0.5:
            word = word[:position] + word[position + 1] + word[position] + word[position + 2 :]
        else:
            word = word[:position] + word[position + 1 :]
        words[index] = word
    return " ".join(words)


@dataclass(frozen=True, slots=True)
class GeneratedMessage:
    """One labelled message."""

    text: str
    esi_level: int
    decision_point: str
    scenario: str
    style: str
    answer_tokens: int


def _fill(template: str, pronouns: tuple[str, str, str, str, str]) -> str:
    he, him, his, himself, person = pronouns
    return template.format(he=he, him=him, his=his, himself=himself, person=person)


def generate_message(rng: random.Random, scenario: Scenario | None = None) -> GeneratedMessage:
    """Draw one message (of a random scenario unless one is given)."""
    if scenario is None:
        level = rng.choices(ESI_LEVELS, weights=LEVEL_WEIGHTS)[0]
        scenario = rng.choice([candidate for candidate in SCENARIOS if candidate.esi_level == level])
    he, him, his, himself, person, relations = PEOPLE[1] if scenario.female_only else rng.choice(PEOPLE)
    pronouns = (he, him, his, himself, person)
    age = rng.randint(*scenario.ages)
    complaint = _fill(rng.choice(scenario.complaints), pronouns)
    extras = [_fill(detail, pronouns) for detail in scenario.details if rng.random() < 0.4]
    if rng.random() < (0.5 if scenario.esi_level >= 3 else 0.2):
        extras.append(rng.choice(DISTRACTORS))
    vitals = _vitals(scenario.vitals, rng, age)
    sex = "M" if he == "he" else "F"
    age_text = f"{age * 52 // 1 if age == 0 else age}"
    style = rng.choice(("caller", "crew", "nurse"))
    if style == "caller":
        relation = rng.choice(relations)
        opener = rng.choice(("Caller states", "Caller reports", "Caller says", "911 call:", ""))
        age_phrase = rng.choice((f", {age} years old", f" ({age})", "")) if age else ", a newborn"
        body = f"{opener} {relation}{age_phrase}: {complaint}".strip()
        sentences = [body, *extras]
        if vitals and rng.random() < 0.3:
            sentences.append(f"caller's monitor shows {vitals}")
    elif style == "crew":
        unit = rng.choice(("Medic", "Rescue", "Engine", "Ambulance"))
        age_phrase = f"{age_text}{rng.choice(('yo', ' yo', ' year old', 'y'))} {sex}" if age else "newborn"
        sentences = [f"{unit} {rng.randint(1, 60)} to dispatch, {age_phrase}, {complaint}", *extras]
        if vitals:
            sentences.append(f"vitals {vitals}")
    else:
        age_phrase = f"{age}{sex}" if age else "newborn"
        sentences = [f"Nurse line: {age_phrase} reporting that {complaint}", *extras]
        if vitals:
            sentences.append(vitals)
    text = ". ".join(sentence[0].upper() + sentence[1:] if sentence else sentence for sentence in sentences) + "."
    if rng.random() < 0.15:
        text = _typos(text, rng)
    if rng.random() < 0.2:
        text = text.lower()
    answer = rng.randint(*scenario.answer_tokens) + (20 if vitals else 0) + 8 * len(extras)
    return GeneratedMessage(text, scenario.esi_level, scenario.decision_point, scenario.name, style, answer)


def generate(count: int, seed: int = 0) -> Iterator[GeneratedMessage]:
    """`count` messages, the same for the same seed; every scenario appears (round-robin, then random)."""
    rng = random.Random(seed)
    for index in range(count):
        scenario = SCENARIOS[index] if index < len(SCENARIOS) else None
        yield generate_message(rng, scenario)


def write_csv(path: Path, count: int, seed: int = 0) -> int:
    """Write a generated training set as CSV (text, esi_level, decision_point, scenario, style, answer_tokens)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text", "esi_level", "decision_point", "scenario", "style", "answer_tokens"])
        written = 0
        for message in generate(count, seed):
            writer.writerow(
                [
                    message.text,
                    message.esi_level,
                    message.decision_point,
                    message.scenario,
                    message.style,
                    message.answer_tokens,
                ]
            )
            written += 1
    return written
