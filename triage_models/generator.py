"""Seeded generator of labelled 911/EMS and emergency-department messages: the training data the project owns.

Four message styles: a caller's words as transcribed, a crew's radio report, a nurse-line note, and an
emergency-department triage note as a triage nurse writes it ("58 y/o M c/o chest pain x 2 hrs ... VS: BP 150/90,
HR 104, RR 22, SpO2 95% RA, T 98.6 F", "A 23-year-old female presents to the emergency department complaining of
..."). Scenarios cover every ESI level and decision point. Levels 3-5 at decision point C follow from the ED
resources the case needs, counted by kind as the ESI handbook does (`resource_count`); those scenarios carry no
high-risk signs. Wording is varied, with typos, negated distractors ("denies chest pain") that never contradict the
scenario, and vital signs that are normal, in the danger zone, or extreme, as the scenario implies. Each message
also carries a reference answer length (tokens of dispatcher guidance) for the length predictor. See
docs/triage.md.
"""

from __future__ import annotations

import csv
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from triage_models.generator_es import NEGATED, spanish_call

GENERATOR_VERSION = "gen-2026.11.3"

RESOURCE_KINDS: dict[str, str] = {
    "labs": "labs",
    "blood work": "labs",
    "urine test": "labs",
    "ECG": "ECG",
    "X-ray": "imaging",
    "chest X-ray": "imaging",
    "CT": "imaging",
    "CT scan": "imaging",
    "ultrasound": "imaging",
    "MRI": "imaging",
    "IV fluids": "IV fluids",
    "IV antibiotics": "medication",
    "IV pain medicine": "medication",
    "IV anti-nausea medicine": "medication",
    "IM pain medication": "medication",
    "nebulised albuterol": "medication",
    "orthopaedic consult": "consultation",
    "hand surgery consult": "consultation",
    "sutures": "simple procedure",
    "laceration repair": "simple procedure",
    "foreign body removal": "simple procedure",
    "incision and drainage": "simple procedure",
    "urinary catheter": "simple procedure",
    "reduction under sedation": "complex procedure",
}
"""Each ED resource a scenario may need, by its ESI handbook kind (labs, ECG, imaging, IV fluids, IV/IM/nebulised
medication, specialty consultation, simple procedure = 1, complex procedure = 2). History and physical, point-of-care
tests, oral medication, tetanus shots, refills, a call to the PCP, simple wound care, crutches, splints and slings are
not resources: those go in `Scenario.non_resources`."""


def resource_count(resources: tuple[str, ...]) -> int:
    """ESI resource count: different kinds, not tests (CBC + BMP + urine = labs = 1); a complex procedure counts 2."""
    kinds = {RESOURCE_KINDS[resource] for resource in resources}
    return sum(2 if kind == "complex procedure" else 1 for kind in kinds)


def level_for_resources(resources: tuple[str, ...]) -> int:
    """Decision point C: none -> ESI 5, one -> ESI 4, two or more -> ESI 3."""
    return {0: 5, 1: 4}.get(resource_count(resources), 3)


@dataclass(frozen=True, slots=True)
class Scenario:
    """One kind of case: its level, the ESI decision point that sets it, how it is described."""

    name: str
    esi_level: int
    decision_point: str
    complaints: tuple[str, ...]
    """As a caller, crew or nurse-line caller says it ({he}, {his}, {him}, {himself}, {person}, {n} placeholders)."""
    details: tuple[str, ...] = ()
    vitals: str = "normal"
    """normal | danger | danger-always | extreme | none: what vital signs, if reported, look like."""
    ages: tuple[int, int] = (18, 90)
    answer_tokens: tuple[int, int] = (120, 220)
    female_only: bool = False
    male_only: bool = False
    note: tuple[str, ...] = ()
    """Chief complaints as a triage nurse charts them (noun phrases: 'R ankle pain and swelling x {n} days')."""
    quotes: tuple[str, ...] = ()
    """The patient's own words, quoted in triage notes."""
    resources: tuple[str, ...] = ()
    """ED resources the case needs (keys of RESOURCE_KINDS): set the level at decision point C."""
    non_resources: tuple[str, ...] = ()
    """Care the case gets that the ESI handbook does not count (splint, crutches, oral medication, refill...)."""
    fever: bool = False


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
        note=(
            "witnessed cardiac arrest, pulseless and apneic",
            "found down, pulseless, AED shock x 1 by EMS",
            "cardiac arrest, no pulse, asystole on monitor",
        ),
    ),
    Scenario(
        "cpr-in-progress",
        1,
        "A",
        (
            "we are doing CPR on {him} right now",
            "I'm doing chest compressions, {he} still has no pulse",
            "CPR in progress, {he} still isn't breathing",
            "the officer is doing CPR on {him}, {he} has not come back",
        ),
        ("we have been doing compressions for {n} minutes", "the defibrillator told us to keep going"),
        "none",
        (1, 95),
        (320, 460),
        note=(
            "CPR in progress",
            "ongoing CPR x {n}0 min, no ROSC",
            "CPR in progress, mechanical compression device in place",
            "arrest with compressions in progress, bagged via BVM",
        ),
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
        note=(
            "apneic, agonal respirations",
            "respiratory arrest, cyanotic, BVM in progress",
            "not breathing, cyanotic",
        ),
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
        note=(
            "unresponsive to voice and pain, GCS 3",
            "found down, unresponsive, snoring respirations",
            "responds only to painful stimuli, GCS 6",
        ),
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
        note=("complete airway obstruction from food bolus, unable to speak", "choking, cyanotic, no air movement"),
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
        note=(
            "uncontrolled hemorrhage L thigh, pale and diaphoretic",
            "arterial bleeding R forearm from chainsaw, tourniquet applied by EMS",
            "traumatic amputation R hand, ongoing bleeding",
        ),
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
        note=(
            "anaphylaxis after peanut exposure, tongue swelling and stridor",
            "bee sting with throat tightness, hypotensive, diffuse hives",
        ),
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
        note=("actively seizing x 15 min despite midazolam x 2", "status epilepticus, seizing on arrival"),
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
        note=(
            "s/p submersion, pulled from pool, apneic",
            "s/p hanging, found unresponsive",
            "s/p high-voltage electrocution, unresponsive",
        ),
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
        note=(
            "MVC with prolonged extrication, unresponsive",
            "GSW to chest, agonal respirations",
            "motorcycle crash, GCS 5",
        ),
    ),
    Scenario(
        "child-struck-unresponsive",
        1,
        "A",
        (
            "a car hit {him} and {he} is not waking up",
            "{he} got hit by a car on {his} bike and {he} is unresponsive",
            "my child was hit by a car and won't respond to me",
        ),
        ("{he} is breathing funny", "{he} wasn't wearing a helmet"),
        "extreme",
        (3, 14),
        (320, 460),
        note=("pedestrian struck by car, unresponsive", "auto vs pedestrian, child unresponsive, GCS 4"),
    ),
    # ESI 1 in callers' words: what a caller sees, not the clinical term.
    Scenario(
        "unresponsive-abnormal-breathing",
        1,
        "A",
        (
            "{he} won't wake up and {he} is breathing weird",
            "{he} is not awake and making snoring sounds",
            "{he} is passed out and {his} breathing sounds like gurgling",
            "{he} won't wake up, {he} is kind of gasping",
            "{he} is out cold and making weird noises when {he} breathes",
        ),
        ("{he} was fine an hour ago", "I can't get {him} to open {his} eyes", "{he} is really pale"),
        "none",
        (15, 90),
        (300, 440),
        note=(
            "unresponsive with snoring respirations",
            "found unresponsive, gurgling respirations, GCS 3",
            "unresponsive with agonal respirations",
        ),
    ),
    Scenario(
        "silent-choking",
        1,
        "A",
        (
            "{he} is choking and can't make a sound",
            "{he} is grabbing {his} throat and can't talk or cough",
            "{he} choked on something and nothing is coming out, no sound at all",
            "{he} can't cough or talk, {his} face is turning purple",
        ),
        ("{he} was eating dinner", "I tried hitting {his} back"),
        "none",
        (1, 90),
        (300, 420),
        note=("choking, unable to speak or cough, cyanotic", "complete airway obstruction, aphonic, clutching throat"),
    ),
    Scenario(
        "seizure-cyanotic",
        1,
        "A",
        (
            "{he} is having a seizure and {his} lips are turning blue",
            "{he} is shaking all over and {he} looks blue",
            "{he} had a seizure and now {he} is blue and not breathing right",
            "{he} keeps seizing and {his} face is going purple",
        ),
        ("{he} has never had a seizure before", "{he} bit {his} tongue"),
        "none",
        (1, 85),
        (300, 420),
        note=("active seizure with perioral cyanosis", "generalized seizure, cyanotic, poor respiratory effort"),
    ),
    Scenario(
        "barely-responsive",
        1,
        "A",
        (
            "found {him} barely responsive on the floor",
            "{he} is barely responding, just moaning",
            "{he} only opens {his} eyes a little when I shake {him}, {he} won't talk",
            "I found {him} and {he} is hardly responding",
        ),
        ("I don't know how long {he} was down", "{he} lives alone", "there's vomit next to {him}"),
        "extreme",
        (20, 95),
        (280, 420),
        note=("found down, minimally responsive, moans to pain", "obtunded, responds only to sternal rub"),
    ),
    Scenario(
        "child-breathing-distress",
        1,
        "A",
        (
            "{he} is working so hard to breathe, {his} ribs are sucking in",
            "{he} is grunting with every breath",
            "{he} can only say a word or two, {he} can't get air",
            "you can see {his} ribs with every breath and {his} lips look blue",
        ),
        ("{he} has asthma", "{he} had a cold for a few days", "the nebulizer isn't helping"),
        "extreme",
        (1, 12),
        (300, 440),
        note=(
            "severe respiratory distress, intercostal retractions and grunting",
            "tripoding, speaks 1-2 words at a time, retractions",
        ),
    ),
    Scenario(
        "hemorrhagic-shock",
        1,
        "A",
        (
            "{he} lost a lot of blood and now {he} is cold and clammy",
            "{he} cut {himself} badly and now {he} is grey and sweaty",
            "{he} has been bleeding and {he} passes out when {he} stands up",
            "{he} is throwing up blood and gets dizzy and faint when {he} stands",
        ),
        ("there's blood all over the floor", "{he} is really thirsty"),
        "extreme",
        (16, 90),
        (300, 440),
        note=(
            "hemorrhage with signs of shock, cool clammy skin",
            "hematemesis with syncope on standing, pale and diaphoretic",
        ),
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
        note=(
            "L-sided weakness and slurred speech, LKW {n} hrs ago",
            "acute R facial droop and aphasia, LKW 30 min PTA",
            "sudden R arm weakness and word-finding difficulty",
        ),
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
        note=(
            "chest pain x {n} hrs, radiating to L arm, diaphoretic",
            "substernal chest pressure with nausea and diaphoresis",
            "CP and SOB, hx MI s/p stent",
        ),
        quotes=("It feels like someone is sitting on my chest", "My chest is so tight"),
    ),
    Scenario(
        "suicidal",
        2,
        "B",
        (
            "{he} says {he} wants to kill {himself}",
            "{he} is suicidal",
            "{he} cut {his} wrists, bleeding is controlled",
            "{he} is threatening to end {his} life",
        ),
        ("{he} has been drinking", "there are guns in the house"),
        "none",
        (14, 80),
        (220, 320),
        note=(
            "SI",
            "suicidal ideation, states wants to die",
            "self-inflicted lacerations to wrists, bleeding controlled",
        ),
        quotes=("I don't want to be here anymore", "I just want it all to stop"),
    ),
    Scenario(
        "si-with-plan",
        2,
        "B",
        (
            "{he} says {he} is going to take all {his} pills tonight",
            "{he} told me {he} has a plan to shoot {himself}",
            "{he} wrote a note and says {he} knows how {he} will do it",
            "{he} is talking about killing {himself} and has been saving up pills",
        ),
        ("{he} is calm right now", "{he} has access to a gun"),
        "normal",
        (13, 80),
        (220, 320),
        note=(
            "SI with plan to overdose",
            "SI with plan, has access to firearm",
            "suicidal ideation with plan and intent",
        ),
        quotes=("I have it all planned out", "I'm going to take all my pills"),
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
        note=("intentional OD on unknown pills, drowsy", "heroin OD, s/p naloxone x 2 by EMS, now awake"),
    ),
    Scenario(
        "overdose-no-symptoms",
        2,
        "B",
        (
            "{he} took 40 of {his} Tylenol an hour ago, {he} feels fine",
            "{he} swallowed a whole bottle of acetaminophen on purpose but says {he} is okay",
            "{he} took about 30 of {his} blood pressure pills, no symptoms yet",
            "{he} took a handful of iron pills to hurt {himself}, {he} seems fine right now",
        ),
        ("{he} is calm and talking", "{he} is walking around"),
        "normal",
        (13, 70),
        (220, 320),
        note=(
            "intentional ingestion of ~40 acetaminophen 500 mg tabs {n} hrs PTA, asymptomatic",
            "ingestion of a bottle of Tylenol 1 hr ago per pt, no complaints at this time",
            "intentional OD of amitriptyline x 30 tabs, currently asymptomatic",
        ),
        quotes=("I feel fine, I just wanted to sleep", "I only took them an hour ago"),
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
        note=(
            "SOB, speaking 2-3 word sentences, accessory muscle use",
            "acute asthma exacerbation unresponsive to home albuterol",
            "COPD exacerbation with severe SOB",
        ),
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
        note=(
            "new confusion, disoriented to time and place",
            "AMS since this am, lethargic, per family not at baseline",
            "syncope, now confused",
        ),
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
        note=(
            "sudden onset worst HA of life",
            "R flank pain 10/10, writhing",
            "severe abd pain 9/10, pale and diaphoretic",
        ),
        quotes=("This is the worst pain I have ever had",),
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
        note=(
            "stab wound to L forearm, bleeding controlled",
            "GSW to R thigh, A&O x 4",
            "s/p fall from roof ~12 ft, back pain",
            "pedestrian struck by car, alert",
        ),
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
        note=("G3P2 at term in active labor, crowning", "HA and blurred vision at 30 wks gestation"),
    ),
    Scenario(
        "pregnancy-bleeding",
        2,
        "B",
        (
            "she is 8 weeks pregnant and bleeding with cramps",
            "she is pregnant and started bleeding heavily",
            "she is about 10 weeks along and passing clots",
        ),
        ("she has some pain low in her belly", "this is her first pregnancy"),
        "normal",
        (18, 42),
        (240, 340),
        female_only=True,
        note=(
            "vaginal bleeding at 9 wks gestation with cramping",
            "G2P1 at 8 wks with vaginal bleeding and LLQ pain",
            "vaginal bleeding soaking pads x {n} hrs, known pregnancy",
        ),
        quotes=("I'm pregnant and I'm bleeding", "I'm scared I'm losing the baby"),
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
        note=("s/p fall with head strike, on warfarin", "head injury with brief LOC", "head strike, now vomiting x 2"),
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
        note=("hypoglycemia, fingerstick glucose 38, diaphoretic", "DKA sx, vomiting and Kussmaul respirations"),
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
        note=("generalized weakness and dizziness", "fever and cough x {n} days", "diarrhea x 1 day, feels faint"),
    ),
    Scenario(
        "infant-fever",
        2,
        "B",
        (
            "my newborn has a fever of 38.4",
            "the baby is 2 weeks old and has a fever and won't feed",
            "the baby is 3 weeks old and feels hot, 38.2 rectal",
        ),
        ("the baby is sleepy",),
        "normal",
        (0, 0),
        (220, 320),
        note=("fever 38.4 C rectal at home, poor feeding", "fever, decreased PO intake", "fever since this am, fussy"),
        fever=True,
    ),
    Scenario(
        "child-struck-lethargic",
        2,
        "B",
        (
            "{he} was hit by a car and is really sleepy",
            "a car hit {him} in the parking lot, {he} is awake but drowsy and not acting right",
            "{he} got hit by a car and keeps falling asleep",
        ),
        ("{he} has a scrape on {his} head", "{he} cried right away"),
        "normal",
        (2, 14),
        (240, 340),
        note=(
            "pedestrian struck by car, lethargic but arousable",
            "auto vs pedestrian, somnolent, responds to voice",
            "struck by vehicle at low speed, drowsy, GCS 13",
        ),
    ),
    Scenario(
        "sexual-assault",
        2,
        "B",
        (
            "{he} was sexually assaulted last night",
            "{he} says {he} was raped",
            "{he} was attacked and sexually assaulted, {he} is not badly hurt",
        ),
        ("{he} is tearful", "police have been called"),
        "normal",
        (14, 70),
        (220, 320),
        note=("sexual assault {n} hrs ago", "sexual assault, requesting exam", "alleged sexual assault last night"),
        quotes=("I was assaulted", "I don't know what happened, I think someone hurt me"),
    ),
    Scenario(
        "testicular-pain",
        2,
        "B",
        (
            "{he} has sudden severe pain in {his} testicle",
            "{his} testicle started hurting suddenly an hour ago and {he} is vomiting",
            "{he} woke up with sudden pain in {his} scrotum",
        ),
        ("no injury",),
        "normal",
        (10, 30),
        (220, 320),
        male_only=True,
        note=(
            "sudden onset L testicular pain x {n} hrs with nausea",
            "acute scrotal pain, onset 1 hr PTA",
            "R testicular pain, sudden onset, no trauma",
        ),
        quotes=("It came on all of a sudden", "It really hurts down there"),
    ),
    Scenario(
        "immunocompromised-fever",
        2,
        "B",
        (
            "{he} is on chemo and has a fever of 38.6",
            "{he} had a kidney transplant and now has a fever and chills",
            "{he} has leukemia and is running a fever",
            "{he} takes anti-rejection drugs and has a temperature of 101",
        ),
        ("{his} last chemo was a week ago", "{he} has a port"),
        "normal",
        (5, 80),
        (220, 320),
        note=(
            "fever, currently receiving chemo for breast CA, last dose {n} days ago",
            "fever and chills, s/p renal transplant on tacrolimus",
            "febrile, hx AML, neutropenic per oncology",
        ),
        fever=True,
    ),
    # ESI 3, decision point C: stable, no high-risk signs, needs two or more kinds of resources.
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
        (8, 85),
        (160, 260),
        note=(
            "RLQ abd pain since last night with nausea, pain 6/10",
            "epigastric pain after meals x {n} days with nausea",
            "abd pain x 1 day with vomiting x 3",
        ),
        quotes=("My stomach hurts on the right side", "It hurts more when I walk"),
        resources=("labs", "CT"),
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
        ("{he} did not hit {his} head", "{he} remembers the whole fall"),
        "normal",
        (65, 95),
        (160, 260),
        note=(
            "s/p mechanical fall, unable to bear weight on R hip",
            "L hip pain after slip in bathroom, L leg shortened and externally rotated",
        ),
        quotes=("I just slipped, I didn't black out", "My hip hurts when you move it"),
        resources=("X-ray", "labs", "IV pain medicine"),
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
        note=("productive cough, fever and chills x {n} days", "cough and fever, mild DOE"),
        quotes=("I can't stop coughing",),
        resources=("labs", "chest X-ray", "IV antibiotics"),
        fever=True,
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
        (1, 85),
        (150, 240),
        note=("N/V/D x 2 days, unable to tolerate PO", "vomiting x {n} days, decreased PO intake"),
        resources=("labs", "IV fluids"),
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
        note=("R flank pain radiating to groin with hematuria, pain 6/10", "hx kidney stones, L flank pain x {n} hrs"),
        quotes=("It feels like my last kidney stone",),
        resources=("labs", "CT", "IV pain medicine"),
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
        note=("lac to L palm from glass, unable to flex index finger", "deep 6 cm lac R shin, bleeding controlled"),
        resources=("X-ray", "laceration repair", "hand surgery consult"),
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
        note=("mild wheezing and cough x 1 day, speaking full sentences", "DOE, hx asthma, improved with home inhaler"),
        resources=("nebulised albuterol", "chest X-ray"),
    ),
    Scenario(
        "deformed-limb",
        3,
        "C",
        (
            "{he} fell off the monkey bars and {his} arm looks bent",
            "{he} fell on {his} wrist and it looks crooked",
            "{he} thinks {he} dislocated {his} shoulder again",
            "{his} finger is pointing the wrong way after catching a ball",
        ),
        ("{he} can wiggle {his} fingers", "{his} hand is warm and pink"),
        "normal",
        (4, 80),
        (150, 240),
        note=(
            "FOOSH with obvious deformity R wrist, distal CMS intact",
            "L shoulder dislocation, hx same",
            "deformity L forearm after fall from monkey bars, radial pulse present",
        ),
        quotes=("I heard it pop", "I can't move my arm"),
        resources=("X-ray", "reduction under sedation"),
        non_resources=("sling",),
    ),
    Scenario(
        "cellulitis-diabetic",
        3,
        "C",
        (
            "{he} is diabetic and {his} leg is red, hot and swollen",
            "{he} has a spreading red area on {his} foot and {he} has diabetes",
            "the redness on {his} leg is getting bigger, {he} is diabetic",
        ),
        ("{he} has been on antibiotic pills for two days",),
        "normal",
        (35, 85),
        (150, 240),
        note=(
            "erythema and swelling L lower leg x {n} days, hx DM2",
            "spreading redness R foot, PMH DM on insulin",
            "cellulitis R leg, failed PO abx",
        ),
        quotes=("The red part keeps getting bigger",),
        resources=("labs", "IV antibiotics"),
    ),
    Scenario(
        "elderly-weakness",
        3,
        "C",
        (
            "{he} has been weaker than usual for a few days and is eating less",
            "{he} is more tired and needs help walking, no other complaints",
            "{his} family says {he} is just weak and tired this week",
        ),
        ("{he} is talking normally", "{he} knows where {he} is"),
        "normal",
        (72, 96),
        (160, 260),
        note=(
            "generalized weakness x {n} days, decreased PO intake, A&O x 3 at baseline",
            "weakness and fatigue x 1 week, ambulatory with walker",
        ),
        quotes=("I just feel so tired",),
        resources=("labs", "ECG", "chest X-ray"),
    ),
    Scenario(
        "pyelonephritis",
        3,
        "C",
        (
            "{he} has burning when peeing, back pain and a fever",
            "{he} has had a bladder infection for days and now has fever and pain in {his} side",
        ),
        ("{he} threw up once",),
        "normal",
        (18, 70),
        (150, 240),
        note=("dysuria x {n} days, now with fever and R flank pain", "fever, chills, CVA tenderness and dysuria"),
        resources=("labs", "urine test", "IV fluids", "IV antibiotics"),
        fever=True,
    ),
    Scenario(
        "migraine",
        3,
        "C",
        (
            "{he} has one of {his} usual migraines, it has gone on for a day and pills didn't help",
            "bad migraine like {his} usual ones, with vomiting",
        ),
        ("light bothers {his} eyes",),
        "normal",
        (16, 55),
        (150, 240),
        note=(
            "migraine x 24 hrs, typical of prior, failed home meds, + nausea",
            "hx migraines, HA similar to previous",
        ),
        quotes=("It feels like my usual migraine",),
        resources=("IV fluids", "IV anti-nausea medicine"),
    ),
    # ESI 4, decision point C: one kind of resource.
    Scenario(
        "ankle-injury",
        4,
        "C",
        (
            "{he} twisted {his} ankle playing soccer",
            "{he} rolled {his} ankle on the stairs and it's swollen",
            "{he} hurt {his} wrist falling off a bike",
            "{he} jammed {his} finger and it is swollen",
        ),
        ("{he} can walk a little", "no other injuries"),
        "normal",
        (8, 70),
        (100, 190),
        note=(
            "R ankle inversion injury, swelling lateral malleolus, able to bear weight with pain",
            "L wrist pain and swelling after fall from bike, no deformity",
            "twisted ankle playing soccer, ambulatory with limp",
        ),
        quotes=("My ankle hurts", "I rolled it on the stairs"),
        resources=("X-ray",),
        non_resources=("splint", "crutches", "ice"),
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
        note=("2 cm lac to L index finger from kitchen knife, bleeding controlled", "1 inch chin lac s/p fall"),
        quotes=("I cut it on a knife",),
        resources=("sutures",),
        non_resources=("tetanus shot",),
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
        (18, 50),
        (90, 170),
        female_only=True,
        note=("dysuria and frequency x {n} days, denies fever or flank pain", "burning with urination x 2 days"),
        quotes=("It burns when I pee",),
        resources=("urine test",),
        non_resources=("oral antibiotics",),
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
        note=("FB sensation R eye after grinding metal, no safety glasses", "something in L eye at work, tearing"),
        quotes=("It feels like something is stuck in my eye",),
        resources=("foreign body removal",),
    ),
    Scenario(
        "ear-nose-foreign-body",
        4,
        "C",
        (
            "{he} put a bead in {his} ear",
            "{he} stuck something up {his} nose and we can't get it out",
            "there is a bug in {his} ear",
        ),
        ("{he} is breathing fine", "{he} is playing normally"),
        "normal",
        (2, 40),
        (90, 170),
        note=(
            "FB L ear (bead) per mother",
            "small toy in R nostril, breathing without difficulty",
            "insect in R ear canal",
        ),
        resources=("foreign body removal",),
    ),
    Scenario(
        "dental-abscess",
        4,
        "C",
        (
            "{he} has a toothache and {his} gum is swollen with a bump on it",
            "{his} tooth hurts and there is a swollen pocket of pus next to it",
        ),
        ("{he} can open {his} mouth fine", "no swelling in {his} face or neck"),
        "normal",
        (16, 70),
        (90, 170),
        note=(
            "dental pain with localized gum abscess x {n} days, no facial swelling",
            "toothache with fluctuant gum swelling",
        ),
        quotes=("My tooth is killing me",),
        resources=("incision and drainage",),
        non_resources=("oral antibiotics", "dental referral"),
    ),
    Scenario(
        "skin-abscess",
        4,
        "C",
        (
            "{he} has a painful boil under {his} arm that is getting bigger",
            "{he} has an abscess on {his} leg",
        ),
        ("no fever",),
        "normal",
        (12, 70),
        (90, 170),
        note=("abscess R axilla x {n} days, fluctuant", "painful boil L thigh, no streaking"),
        resources=("incision and drainage",),
        non_resources=("dressing",),
    ),
    Scenario(
        "back-strain",
        4,
        "C",
        (
            "{he} hurt {his} back lifting a box, it hurts but {he} can walk",
            "lower back pain after moving furniture yesterday",
        ),
        ("no numbness in {his} legs",),
        "normal",
        (20, 60),
        (90, 170),
        note=(
            "low back pain after lifting x 1 day, no numbness or incontinence, ambulatory",
            "muscle strain L low back",
        ),
        quotes=("I felt something pull in my back",),
        resources=("IM pain medication",),
    ),
    # ESI 5, decision point C: no resources.
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
        note=(
            "requesting refill of BP medication, ran out {n} days ago, asymptomatic",
            "Rx refill for albuterol inhaler",
        ),
        quotes=("I just need my pills",),
        non_resources=("prescription refill", "call to the PCP"),
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
        (1, 70),
        (60, 130),
        note=("rhinorrhea and mild cough x {n} days, tolerating PO", "URI sx x 3 days"),
        quotes=("It's just a cold but it won't go away",),
    ),
    Scenario(
        "minor-rash-bite",
        5,
        "C",
        (
            "{he} has a small itchy rash on {his} arm",
            "{he} has a bug bite that is a little red",
            "{he} got bitten by a mosquito and it itches",
        ),
        ("no swelling",),
        "none",
        (1, 80),
        (60, 130),
        note=("small pruritic rash L forearm x {n} days", "insect bite R arm, no swelling"),
        quotes=("It just itches",),
        non_resources=("oral antihistamine",),
    ),
    Scenario(
        "suture-removal",
        5,
        "C",
        (
            "{he} is here to get the sutures taken out of {his} hand",
            "{he} needs a wound check on the cut from last week",
            "{he} needs {his} dressing changed",
        ),
        ("no redness or drainage",),
        "normal",
        (3, 85),
        (50, 120),
        note=("suture removal, wound healing well", "wound recheck, no signs of infection", "here for dressing change"),
        non_resources=("suture removal", "wound check", "dressing change"),
    ),
    Scenario(
        "work-note",
        5,
        "C",
        (
            "{he} needs a note for work after being sick",
            "{he} needs a doctor's note for school",
        ),
        ("{he} feels better now",),
        "normal",
        (6, 65),
        (50, 120),
        note=("requesting work note, sx resolved", "needs school note, feels well"),
        quotes=("My boss wants a note",),
    ),
    Scenario(
        "sore-throat",
        5,
        "C",
        (
            "{he} has a mild sore throat",
            "{he} has had a scratchy throat for two days, drinking fine",
        ),
        ("{he} is otherwise healthy",),
        "normal",
        (18, 45),
        (60, 130),
        note=("mild sore throat x {n} days, tolerating PO, no drooling", "ST x 2 days, healthy adult"),
        quotes=("It hurts a little when I swallow",),
        non_resources=("rapid strep test", "oral medication"),
    ),
    Scenario(
        "ear-pain",
        5,
        "C",
        (
            "{he} has had ear pain since yesterday",
            "{he} keeps pulling at {his} ear",
        ),
        ("{he} is drinking fine",),
        "normal",
        (1, 10),
        (60, 130),
        note=("L ear pain x 1 day, tugging at ear", "R otalgia since last night"),
        non_resources=("oral antibiotics",),
    ),
    Scenario(
        "pink-eye",
        5,
        "C",
        (
            "{his} eye is red and crusty in the morning",
            "{he} has pink eye",
        ),
        ("{he} can see fine",),
        "normal",
        (1, 60),
        (60, 130),
        note=("R eye redness with crusting x {n} days, vision intact", "bilateral conjunctival injection, discharge"),
        non_resources=("antibiotic eye drops",),
    ),
    Scenario(
        "poison-ivy",
        5,
        "C",
        (
            "{he} has an itchy blistering rash after pulling weeds",
            "{he} thinks {he} got into poison ivy",
        ),
        ("{he} is not having any trouble swallowing",),
        "none",
        (4, 75),
        (60, 130),
        note=("pruritic vesicular rash both forearms after yard work", "poison ivy exposure x {n} days"),
        quotes=("It itches like crazy",),
        non_resources=("steroid cream", "oral antihistamine"),
    ),
    Scenario(
        "minor-burn",
        5,
        "C",
        (
            "{he} burned {his} finger on the stove, there's a small blister",
            "{he} touched a hot pan, {his} hand is a little red",
        ),
        ("we ran it under cool water",),
        "normal",
        (3, 80),
        (60, 130),
        note=("superficial burn R index finger from stove, small blister", "first degree burn L palm"),
        non_resources=("dressing",),
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
        note=("question about medication dose", "small bruise L knee after bump yesterday", "mild toothache x 1 wk"),
    ),
    # ESI 4-5 calls that use scary words: resolved episodes, questions, history, readings without symptoms.
    Scenario(
        "choked-resolved",
        5,
        "C",
        (
            "{he} choked on a piece of food but coughed it out, {he} is talking normally now",
            "{he} was choking for a second, it came out and {he} is fine",
            "{he} choked on a candy, we got it out and {he} is crying and breathing fine",
        ),
        ("{he} is eating again", "we just want to know if {he} should be checked"),
        "none",
        (1, 85),
        (60, 130),
        note=(
            "brief choking episode on food, resolved with coughing, speaking full sentences",
            "choking episode at dinner, self-resolved, no distress",
        ),
        quotes=("It went down the wrong way but I'm okay now",),
    ),
    Scenario(
        "nosebleed-stopped",
        5,
        "C",
        (
            "{he} had a nosebleed, it stopped after pinching {his} nose",
            "{his} nose was bleeding for ten minutes, it has stopped now",
        ),
        ("{he} feels fine", "it happens when the air is dry"),
        "normal",
        (3, 75),
        (60, 130),
        note=("epistaxis x 10 min, resolved with pressure PTA", "nosebleed, stopped before arrival"),
        non_resources=("nasal pressure",),
    ),
    Scenario(
        "fainted-sight-of-blood",
        4,
        "C",
        (
            "{he} fainted when {he} saw blood, {he} is fine now and back to normal",
            "{he} passed out for a few seconds while getting blood drawn, {he} is awake and talking now",
            "{he} got woozy and fainted when {he} saw {his} cut, {he} came right around",
        ),
        ("{he} did not hit {his} head", "{he} has fainted at the sight of blood before"),
        "normal",
        (12, 45),
        (90, 170),
        note=(
            "vasovagal syncope at sight of blood, now at baseline",
            "brief syncope during phlebotomy, back to baseline, no injury",
        ),
        quotes=("I always faint when I see blood",),
        resources=("ECG",),
    ),
    Scenario(
        "admin-question",
        5,
        "C",
        (
            "{he} wants to sign up for a CPR class",
            "{he} needs to reschedule {his} cardiology appointment",
            "{he} is asking what to do if someone has a seizure",
            "{he} is asking for the non-emergency number",
            "{he} wants to know what to do if someone is choking",
            "{he} is asking how to use narcan in case of an overdose",
        ),
        ("it's not an emergency", "nobody is hurt"),
        "none",
        (18, 85),
        (50, 120),
        note=("requesting CPR class information, no medical complaint", "administrative call, no complaint"),
        quotes=("Nobody is sick, I just have a question",),
    ),
    Scenario(
        "history-refill",
        5,
        "C",
        (
            "{he} had a stroke years ago and needs {his} prescription refilled",
            "{he} had a heart attack five years ago, {he} just needs a refill of {his} pills",
            "{he} had a seizure a long time ago and {his} medicine ran out yesterday",
        ),
        ("{he} feels fine today", "nothing new"),
        "none",
        (40, 90),
        (60, 130),
        note=("remote hx CVA, requesting Rx refill, no new complaints", "hx MI years ago, requesting refill, well"),
        quotes=("I just need my prescription",),
        non_resources=("prescription refill",),
    ),
    Scenario(
        "minor-injury-family-history",
        4,
        "C",
        (
            "{he} twisted {his} ankle, {his} father had a heart attack so {he} is nervous",
            "{his} dad had a heart attack last year, today {he} twisted {his} ankle and it is swollen",
            "{his} mother had a stroke last year but today {he} just hurt {his} wrist",
        ),
        ("{he} can walk on it a little",),
        "normal",
        (12, 70),
        (100, 190),
        note=("R ankle inversion injury, FHx MI", "L wrist pain and swelling after fall, family hx CVA"),
        resources=("X-ray",),
        non_resources=("splint",),
    ),
    Scenario(
        "bp-reading-no-symptoms",
        5,
        "C",
        (
            "{his} blood pressure was a little high at the pharmacy, 150 over 92, {he} feels fine",
            "{he} checked {his} blood pressure at home and it was 148/90, no symptoms",
            "the machine at the store said {his} blood pressure was high, {he} has no headache or chest pain",
        ),
        ("{he} is not on blood pressure pills",),
        "none",
        (30, 85),
        (60, 130),
        note=("elevated BP reading at pharmacy 150/92, asymptomatic", "BP check, home readings 140s/90s, no HA"),
        quotes=("I feel totally fine",),
        non_resources=("BP recheck",),
    ),
    Scenario(
        "small-scrape",
        5,
        "C",
        (
            "{he} scraped {his} knee on the sidewalk, it bled a little and stopped",
            "{he} fell off {his} scooter and has a scrape on {his} elbow",
            "{he} has a small scrape on {his} hand",
        ),
        ("we washed it with soap and water",),
        "none",
        (2, 80),
        (50, 120),
        note=("abrasion R knee after fall, bleeding stopped", "superficial abrasions L elbow"),
        non_resources=("wound cleaning",),
    ),
    Scenario(
        "stubbed-toe",
        5,
        "C",
        (
            "{he} stubbed {his} toe an hour ago and it still hurts a bit",
            "{he} kicked the door frame with {his} toe, it's a little sore but {he} can walk fine",
        ),
        ("the toe looks straight",),
        "none",
        (5, 85),
        (50, 120),
        note=("stubbed L great toe 1 hr PTA, ambulatory, mild pain", "R toe pain after stubbing, no deformity"),
        quotes=("I just stubbed it",),
    ),
)

ESI_LEVELS = (1, 2, 3, 4, 5)
LEVEL_WEIGHTS = (0.10, 0.24, 0.26, 0.22, 0.18)
"""Share of each level among generated messages: ESI 1-2 over-represented so the rare levels are learned, and
ESI 4-5 (rare in ED records) well represented so decision point C is learned."""

STYLES = ("caller", "transcript", "bystander", "spanish", "interpreter", "crew", "nurse", "triage-note")
STYLE_WEIGHTS = (0.10, 0.12, 0.14, 0.11, 0.05, 0.12, 0.09, 0.27)
"""Call-style text (a caller's words, a speech-to-text transcript, a bystander, a Spanish caller, a call through an
interpreter) is about half; a bystander style drawn for a scenario no stranger could see is worded as a caller."""
CALL_STYLES = frozenset(("caller", "transcript", "bystander", "spanish", "interpreter"))

_BREATHING = r"breath|wheez|sob\b|chok|asthma|copd|resp|apneic|gasp|throat|cpr"
_CONSCIOUS = (
    r"conscious|respon|passed out|passes out|faint|wake|awake|out cold|moan|knocked|\bloc\b|syncope|arrest|pulse|cpr|"
    r"sleepy|drowsy|somnolent|letharg|seiz|convuls"
)
DISTRACTORS: tuple[tuple[str, str], ...] = (
    ("denies chest pain", r"chest|\bcp\b"),
    ("no trouble breathing", _BREATHING),
    ("not bleeding", r"bleed|blood|cut|lac\b|stab|shot|gsw|amputation|wrists"),
    ("no loss of consciousness", _CONSCIOUS),
    ("breathing normally", _BREATHING),
    ("alert and talking", _CONSCIOUS + r"|confus|disorient|ams\b|seiz|drown|hanging|stroke|speech"),
    ("no fever", r"fever|febrile|hot|chills|38\.|101"),
    ("denies shortness of breath", _BREATHING),
    ("no allergies", r"allerg|anaphyla|sting|peanut"),
    ("not confused", _CONSCIOUS + r"|confus|disorient|ams\b|seiz|stroke|speech|strange|drown|hanging"),
    ("no head injury", r"head|fall|fell|struck|hit by|crash|mvc"),
    ("not pregnant", r"pregnan|labor|baby|wks|weeks"),
)
"""Negated findings that say nothing about the level; each with the topics it would contradict."""
NOTE_DISTRACTORS: tuple[tuple[str, str], ...] = (
    ("denies CP", r"chest|\bcp\b"),
    ("denies SOB", _BREATHING),
    ("no LOC", _CONSCIOUS),
    ("denies fever", r"fever|febrile|hot|chills|38\.|101"),
    ("no N/V", r"vomit|nause|n/v|\bpo\b|throw|keep"),
    ("denies head strike", r"head|fall|fell|struck|hit by|crash|mvc"),
    ("A&O x 4", _CONSCIOUS + r"|confus|disorient|ams\b|seiz|stroke|speech|strange|drown|hanging|a&o"),
    ("ambulatory to triage", _CONSCIOUS + r"|ambulat|walk|weight|hip|ankle|leg|fall|fell|seiz|labor|drown|hanging"),
    (
        "no distress noted",
        _BREATHING + r"|" + _CONSCIOUS + r"|pain|bleed|seiz|confus|labor|drown|hanging|suicid|\bsi\b",
    ),
)
AMBULANCE_SHARE = {1: 0.85, 2: 0.45, 3: 0.3, 4: 0.18, 5: 0.12}
"""How often a triage note's patient came by ambulance, by level: a hint, never the rule."""
PAIN_BY_LEVEL = {2: (3, 8), 3: (2, 6), 4: (1, 6), 5: (0, 3)}
"""Charted pain scores (0-10) by level; levels 3-5 stay below 7, which the handbook would weigh toward ESI 2."""
SEVERE_PAIN = frozenset(("severe-pain", "testicular-pain"))
PAINLESS = frozenset(
    (
        "stroke",
        "suicidal",
        "si-with-plan",
        "overdose-awake",
        "overdose-no-symptoms",
        "altered-mental-status",
        "diabetic-emergency",
        "immunocompromised-fever",
        "danger-vitals",
        "fainted-sight-of-blood",
        "admin-question",
        "history-refill",
        "bp-reading-no-symptoms",
        "choked-resolved",
    )
)
NOTE_DISTRACTOR_TEXTS = frozenset(text for text, _ in NOTE_DISTRACTORS)
PMH_CHOICES = ("HTN", "HLD", "DM2", "hypothyroidism", "GERD", "OA", "seasonal allergies", "depression", "asthma")
ALLERGY_CHOICES = ("NKDA", "NKDA", "NKA", "allergic to PCN", "allergy: sulfa")
FILLERS = ("uh", "um", "like", "you know", "okay so", "i mean", "uh", "um")
TRANSCRIPT_OPENERS = ("", "", "hi yes", "um hello", "okay so", "yeah hi", "hello yes i need help", "yes hi")
CONTRACTIONS = (
    (r"\bhe is\b", "hes"),
    (r"\bshe is\b", "shes"),
    (r"\bit is\b", "its"),
    (r"\bi am\b", "im"),
    (r"\bthere is\b", "theres"),
    (r"\bcannot\b", "cant"),
    (r"\bdo not\b", "dont"),
    (r"\bdoes not\b", "doesnt"),
    (r"\bwill not\b", "wont"),
)
ASR_MISSPELLINGS: dict[str, tuple[str, ...]] = {
    "breathing": ("breething", "breathin"),
    "breathe": ("breath", "breeth"),
    "overdose": ("over dose",),
    "overdosed": ("over dosed",),
    "chest": ("cheste", "chess"),
    "unconscious": ("unconsious", "unconscience"),
    "seizure": ("seezure", "seasure"),
    "seizing": ("seezing",),
    "ambulance": ("ambulence",),
    "allergic": ("alergic",),
    "pills": ("pils",),
    "throat": ("throte",),
    "heart": ("hart",),
    "choking": ("chocking",),
    "pulse": ("pulls",),
    "weak": ("week",),
    "pain": ("pane",),
    "blue": ("blew",),
    "diabetic": ("diabetik",),
    "dizzy": ("dizy",),
    "vomiting": ("vomitting",),
    "bleeding": ("bleedin",),
    "stroke": ("stroak",),
}
"""Words a speech-to-text engine gets wrong on a noisy line: misspellings and homophones."""
BYSTANDER_SIGHTS: dict[str, tuple[str, ...]] = {
    "cardiac-arrest": (
        "{he} just dropped and {he} isn't moving",
        "{he} is lying face down and I don't think {he} is breathing",
        "{his} face is grey and {he} is not moving at all",
    ),
    "cpr-in-progress": ("somebody is doing CPR on {him} right now", "a man is doing compressions on {him}"),
    "not-breathing": (
        "{he} is not breathing, {his} lips are blue",
        "{he} is just lying there gasping every few seconds",
    ),
    "unresponsive": (
        "{he} is lying there and won't respond when I yell at {him}",
        "{he} is slumped over and won't wake up",
        "{he} is out cold, {he} doesn't move when I shake {him}",
    ),
    "choking": ("{he} is grabbing {his} throat and turning blue", "{he} was eating and now {he} can't breathe"),
    "severe-bleeding": (
        "there's a big pool of blood under {him}",
        "{he} is bleeding really bad from {his} leg, it's soaking through everything",
        "blood is spurting out of {his} arm",
    ),
    "anaphylaxis": (
        "{his} face and lips are all swollen and {he} is wheezing",
        "{he} got stung and can barely breathe",
    ),
    "status-seizure": ("{he} has been shaking on the ground for like ten minutes", "{he} is still jerking all over"),
    "shock-trauma": (
        "the driver is slumped over the wheel, not moving",
        "{he} got shot and {he} is barely breathing",
        "{he} came off a motorcycle and is on the ground not moving",
    ),
    "child-struck-unresponsive": (
        "a car hit {him} and {he} is lying in the street not moving",
        "{he} got hit on {his} bike and {he} is not waking up",
    ),
    "unresponsive-abnormal-breathing": (
        "{he} is lying there snoring really loud and I can't wake {him}",
        "{he} is passed out and making gurgling noises",
        "{he} won't wake up and {his} breathing sounds weird",
    ),
    "silent-choking": (
        "{he} is holding {his} throat and can't make a sound",
        "{he} can't talk or cough, {he} is purple",
    ),
    "seizure-cyanotic": (
        "{he} is on the ground shaking and {his} lips are blue",
        "{he} was shaking and now {he} is blue and not breathing right",
    ),
    "barely-responsive": (
        "{he} is slumped on the ground, {he} just moans when I talk to {him}",
        "{his} eyes open a little but {he} won't answer me",
    ),
    "child-breathing-distress": (
        "{he} is breathing really hard, {his} ribs are sucking in",
        "{he} can only get a word out",
    ),
    "hemorrhagic-shock": (
        "{he} is bleeding and {he} looks grey and sweaty",
        "{he} tried to stand up and passed out, there's blood everywhere",
        "{he} is pale and clammy and shaking",
    ),
    "stroke": (
        "{his} face is drooping on one side",
        "{he} can't lift {his} arm and {his} words are slurred",
        "{he} is talking funny and leaning to one side",
    ),
    "chest-pain-acs": (
        "{he} is holding {his} chest and sweating a lot",
        "{he} sat down clutching {his} chest, {he} looks grey",
    ),
    "respiratory-distress": ("{he} is sitting hunched over gasping for air", "{he} is wheezing and can barely talk"),
    "altered-mental-status": (
        "{he} is wandering around and doesn't know where {he} is",
        "{he} is talking nonsense and seems really confused",
    ),
    "penetrating-trauma": (
        "{he} got stabbed, {he} is holding {his} arm and talking",
        "{he} got shot in the leg, {he} is awake",
    ),
    "overdose-awake": (
        "{he} took something, {he} is really drowsy and nodding off",
        "they gave {him} narcan and {he} woke up",
    ),
    "severe-pain": ("{he} is rolling on the ground screaming in pain", "{he} is doubled over holding {his} side"),
    "child-struck-lethargic": (
        "a car bumped {him} in the parking lot, {he} is awake but really sleepy",
        "{he} got hit by a car and keeps dozing off",
    ),
    "head-injury-anticoag": (
        "{he} fell and hit {his} head on the curb, now {he} is throwing up",
        "{he} hit {his} head and was knocked out for a minute",
    ),
    "fall-hip": (
        "{he} fell and can't get up, {he} is holding {his} hip",
        "{he} slipped and {his} leg looks short and turned out",
    ),
    "deformed-limb": (
        "{he} fell off the monkey bars and {his} arm looks bent",
        "{his} wrist looks crooked after {he} fell",
    ),
    "complex-laceration": ("{he} cut {his} hand on broken glass, it's deep but the bleeding is controlled",),
    "ankle-injury": (
        "{he} twisted {his} ankle and is limping",
        "{he} rolled {his} ankle on the curb, it's swelling up",
    ),
    "simple-laceration": ("{he} has a small cut on {his} chin, the bleeding stopped",),
    "fainted-sight-of-blood": ("{he} fainted when {he} saw the blood but came right around and is talking fine",),
    "small-scrape": ("{he} fell and scraped {his} knee, it's just a little scrape", "{he} has a scrape on {his} elbow"),
    "choked-resolved": ("{he} was choking at the next table but coughed it up, {he} is talking normally now",),
    "nosebleed-stopped": ("{he} had a nosebleed but it stopped, {he} is fine",),
    "stubbed-toe": ("{he} stubbed {his} toe on the curb, {he} is limping a little but okay",),
}
"""What a stranger or a neighbour sees from outside, for the scenarios a passer-by could witness."""
STRANGERS = {
    "M": (
        ("a guy", "a man", "some guy", "my neighbor", "a homeless man"),
        ("an older man", "an old man", "my neighbor"),
    ),
    "F": (("a lady", "a woman", "a young woman", "my neighbor"), ("an older lady", "an old lady", "my neighbor")),
}
STRANGER_CHILDREN = {
    "M": ("my neighbor's kid", "a kid", "a little boy", "a boy"),
    "F": ("my neighbor's kid", "a kid", "a little girl", "a girl"),
}
PLACES = (
    "on the sidewalk",
    "at the bus stop",
    "in the parking lot",
    "outside the grocery store",
    "in a car at the light",
    "on a bench in the park",
    "in the hallway of my building",
    "in the yard next door",
    "on the corner",
    "at the gas station",
)
BYSTANDER_CLOSINGS = (
    "I don't know {him}",
    "I don't know what happened to {him}",
    "a few people are standing around",
    "I'm across the street",
    "I just walked up",
    "",
)
INTERPRETER_LEADS = (
    "Interpreter relays: caller says",
    "Through the interpreter, caller reports",
    "Language line, Spanish interpreter on the call: caller states",
    "Per interpreter, caller says",
)
INTERPRETER_NOTES = (
    "caller is very upset",
    "caller is crying, the interpreter is helping",
    "interpreter confirms the address",
    "caller speaks Spanish only",
    "",
)


@dataclass(frozen=True, slots=True)
class Person:
    """Pronouns and the words a caller or a nurse uses for the patient."""

    he: str
    him: str
    his: str
    himself: str
    person: str
    sex: str
    adult_noun: str
    child_noun: str
    relations: tuple[str, ...]
    child_relations: tuple[str, ...]


PEOPLE = (
    Person(
        "he",
        "him",
        "his",
        "himself",
        "man",
        "M",
        "male",
        "boy",
        ("my husband", "my father", "my son", "a man", "my neighbor", "the patient"),
        ("my son", "my child", "a little boy", "my grandson", "the boy"),
    ),
    Person(
        "she",
        "her",
        "her",
        "herself",
        "woman",
        "F",
        "female",
        "girl",
        ("my wife", "my mother", "my daughter", "a woman", "my neighbor", "the patient"),
        ("my daughter", "my child", "a little girl", "my granddaughter", "the girl"),
    ),
)


@cache
def _distractors(scenario: Scenario, note: bool) -> tuple[str, ...]:
    """The distractors that do not contradict what the scenario says."""
    said = " ".join((scenario.name, *scenario.complaints, *scenario.details, *scenario.note)).lower()
    table = NOTE_DISTRACTORS if note else DISTRACTORS
    calm = ("ambulatory to triage", "no distress noted") if scenario.esi_level == 1 else ()
    return tuple(text for text, topic in table if not re.search(topic, said) and text not in calm)


def _vital_values(kind: str, rng: random.Random, age: int, fever: bool) -> tuple[dict[str, int | float], set[str]]:
    """Vital signs: normal, with one or two in the danger zone (by age), or one extreme; and which are abnormal."""
    infant, child = age < 1, age <= 8
    values: dict[str, int | float] = {
        "hr": rng.randint(110, 160) if infant else rng.randint(70, 110) if child else rng.randint(60, 98),
        "rr": rng.randint(30, 40) if infant else rng.randint(18, 26) if child else rng.randint(12, 19),
        "spo2": rng.randint(95, 100),
        "sbp": rng.randint(100, 150) if age < 40 else rng.randint(105, 168),
        "temp": round(rng.uniform(38.1, 39.6) if fever else rng.uniform(36.2, 37.6), 1),
    }
    abnormal: set[str] = set()
    # nobody reports a small child's blood pressure, so it is never what makes the vital signs abnormal
    pressure = ("sbp",) if age >= 3 else ()
    if kind == "danger":
        for which in rng.sample(("hr", "rr", "spo2", *pressure), rng.randint(1, 2)):
            abnormal.add(which)
            values[which] = {
                "hr": rng.randint(165, 185) if child else rng.randint(104, 145),
                "rr": rng.randint(42, 55) if child else rng.randint(22, 32),
                "spo2": rng.randint(87, 91),
                "sbp": rng.randint(75, 88),
            }[which]
    elif kind == "extreme":
        which = rng.choice(("hr", "spo2", *pressure))
        abnormal.add(which)
        values[which] = {
            "hr": rng.choice((rng.randint(185, 210), rng.randint(28, 38))),
            "spo2": rng.randint(70, 83),
            "sbp": rng.randint(55, 68),
        }[which]
    sbp = int(values["sbp"])
    values["dbp"] = rng.randint(40, 55) if sbp < 90 else min(98, max(60, sbp - rng.randint(35, 60)))
    return values, abnormal


def _dispatch_vitals(values: dict[str, int | float], abnormal: set[str], age: int, rng: random.Random) -> str:
    """Vital signs as a caller's monitor or a crew reports them: a few, the abnormal ones always."""
    hr, rr, spo2, sbp, dbp, temp = (values[key] for key in ("hr", "rr", "spo2", "sbp", "dbp", "temp"))
    wording = {
        "hr": rng.choice((f"HR {hr}", f"pulse {hr}", f"heart rate {hr}")),
        "sbp": rng.choice((f"BP {sbp}/{dbp}", f"blood pressure {sbp}/{dbp}")),
        "rr": rng.choice((f"RR {rr}", f"resp {rr}")),
        "spo2": rng.choice((f"SpO2 {spo2}%", f"sats {spo2}%", f"O2 sat {spo2}")),
        "temp": rng.choice((f"temp {temp}", f"T {temp}")),
    }
    if age < 3:
        del wording["sbp"]  # nobody reports a small child's blood pressure
    normal = [name for name in wording if name not in abnormal]
    shown = sorted(abnormal) + rng.sample(normal, rng.randint(max(0, 2 - len(abnormal)), len(normal)))
    rng.shuffle(shown)
    return ", ".join(wording[name] for name in shown)


def _temperature(celsius: float, rng: random.Random) -> str:
    fahrenheit = f"{celsius * 9 / 5 + 32:.1f}"
    return rng.choice(
        (
            f"{celsius:.1f} C",
            f"{celsius:.1f}C",
            f"{fahrenheit} F",
            f"{fahrenheit}F",
            f"{celsius:.1f} C ({fahrenheit} F)",
        )
    )


def _note_vitals(values: dict[str, int | float], age: int, rng: random.Random) -> str:
    """All the vital signs, as a triage nurse charts them ("VS: BP 150/90, HR 104, ... SpO2 95% RA, T 98.6 F")."""
    hr, rr, spo2, sbp, dbp, temp = (values[key] for key in ("hr", "rr", "spo2", "sbp", "dbp", "temp"))
    room_air = rng.choice((" RA", " on RA", " on room air", ""))
    temperature = _temperature(float(temp), rng)
    if rng.random() < 0.55:
        prefix = rng.choice(("VS:", "VS:", "Vitals:", "Triage VS:"))
        parts = [f"BP {sbp}/{dbp}", f"HR {hr}", f"RR {rr}", f"SpO2 {spo2}%{room_air}", f"T {temperature}"]
    else:
        prefix = "Vital signs:"
        parts = [
            f"blood pressure {sbp}/{dbp}",
            rng.choice((f"pulse {hr}", f"heart rate {hr}")),
            rng.choice((f"respiratory rate {rr}", f"respirations {rr}")),
            f"oxygen saturation {spo2}%{room_air}",
            f"temperature {temperature}",
        ]
    if age < 3:
        parts = parts[1:]  # no blood pressure on the small child
    return f"{prefix} {', '.join(parts)}"


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
    language: str = "en"
    """en | es: the language of the text (an interpreter's relay is English)."""


@dataclass(frozen=True, slots=True)
class _Case:
    """What one drawn message is about, before it is worded in a style."""

    scenario: Scenario
    person: Person
    age: int
    n: int
    extras: list[str]
    vitals: dict[str, int | float] | None
    abnormal: set[str]

    def fill(self, template: str) -> str:
        person = self.person
        return template.format(
            he=person.he, him=person.him, his=person.his, himself=person.himself, person=person.person, n=self.n
        )


def _join(sentences: list[str]) -> str:
    """Capitalised sentences, each closed by a full stop unless it ends in its own punctuation."""
    out = []
    for sentence in sentences:
        if not sentence:
            continue
        first = 1 if sentence[0] == '"' and len(sentence) > 1 else 0
        sentence = sentence[:first] + sentence[first].upper() + sentence[first + 1 :]
        out.append(sentence if sentence[-1] in '.!?"' else sentence + ".")
    return " ".join(out)


def _relation(case: _Case, rng: random.Random) -> str:
    """Who the patient is to the caller: nobody's 20-year-old mother, nor 80-year-old son."""
    if 0 < case.age < 16:
        return rng.choice(case.person.child_relations)
    unlikely: tuple[str, ...] = ("my father", "my mother") if case.age < 35 else ()
    unlikely += ("my son", "my daughter") if case.age > 60 else ("my husband", "my wife") if case.age < 18 else ()
    return rng.choice(tuple(relation for relation in case.person.relations if relation not in unlikely))


def _caller_text(case: _Case, rng: random.Random) -> tuple[str, bool]:
    relation = _relation(case, rng)
    opener = rng.choice(("Caller states", "Caller reports", "Caller says", "911 call:", ""))
    age_phrase = rng.choice((f", {case.age} years old", f" ({case.age})", "")) if case.age else ", a newborn"
    complaint = case.fill(rng.choice(case.scenario.complaints))
    sentences = [f"{opener} {relation}{age_phrase}: {complaint}".strip(), *case.extras]
    shown = case.vitals is not None and rng.random() < 0.3
    if case.vitals is not None and shown:
        sentences.append(f"caller's monitor shows {_dispatch_vitals(case.vitals, case.abnormal, case.age, rng)}")
    return _join(sentences), shown


def as_spoken(text: str, aint: bool = False) -> str:
    """Words as speech-to-text writes them: lower case, no punctuation or apostrophes, numbers as said; with `aint`,
    "he's not" and "isn't" as "he aint"."""
    text = re.sub(r"\b(\d+)/10\b", r"\1 out of 10", text.lower())
    text = re.sub(r"(\d)/(\d)", r"\1 over \2", text)
    text = re.sub(r"(\d)\.(\d)", r"\1 point \2", text).replace("%", " percent")
    for pattern, contraction in CONTRACTIONS:
        text = re.sub(pattern, contraction, text)
    text = text.replace("'", "").replace("\u2019", "")
    if aint:
        text = re.sub(r"\b(he|she)s not\b|\bisnt\b", lambda match: f"{match.group(1) or ''} aint".strip(), text)
    return " ".join(re.sub(r"[^a-z0-9 ]+", " ", text).split())


def _disfluent(words: list[str], rng: random.Random) -> list[str]:
    """Restarts ("hes not hes not breathing", "my my dad"), misheard words and fillers."""
    if rng.random() < 0.45:
        words = [
            rng.choice(ASR_MISSPELLINGS[word]) if word in ASR_MISSPELLINGS and rng.random() < 0.5 else word
            for word in words
        ]
    for _ in range(rng.choice((0, 1, 1, 2))):
        start = rng.randrange(len(words))
        stop = min(len(words), start + rng.randint(1, 3))
        words = words[:stop] + words[start:]
    for _ in range(rng.randint(1, 3)):
        words.insert(rng.randrange(len(words) + 1), rng.choice(FILLERS))
    return words


def _transcript_text(case: _Case, rng: random.Random) -> tuple[str, bool]:
    """A call as a speech-to-text engine transcribes it: one run of words, no punctuation, disfluent."""
    relation = _relation(case, rng).replace("the patient", "this " + case.person.person)
    if rng.random() < 0.5:
        relation = relation.replace("my father", "my dad").replace("my mother", "my mom")
    he = case.person.he
    age = rng.choice((f"{he} is {case.age}", f"{he} is like {case.age}", "", "")) if case.age else f"{he} is a newborn"
    parts = [rng.choice(TRANSCRIPT_OPENERS), relation, case.fill(rng.choice(case.scenario.complaints)), age]
    parts += case.extras
    shown = case.vitals is not None and bool(case.abnormal) and rng.random() < 0.5
    if case.vitals is not None and shown:
        parts.append("the monitor says " + _dispatch_vitals(case.vitals, case.abnormal, case.age, rng))
    words = as_spoken(" ".join(part for part in parts if part), aint=rng.random() < 0.25).split()
    return " ".join(_disfluent(words, rng)), shown


def _stranger(case: _Case, rng: random.Random) -> str:
    """A passer-by's name for someone they do not know (or barely: a neighbour)."""
    if case.age < 16:
        return rng.choice(STRANGER_CHILDREN[case.person.sex])
    return rng.choice(STRANGERS[case.person.sex][case.age >= 60])


def _bystander_text(case: _Case, rng: random.Random) -> tuple[str, bool]:
    """A stranger or a neighbour describing from outside how the patient looks and moves, or does not."""
    who, place = _stranger(case, rng), rng.choice(PLACES)
    opener = rng.choice((f"there's {who} {place}", f"I'm driving by and there's {who} {place}", f"I see {who} {place}"))
    sights = BYSTANDER_SIGHTS[case.scenario.name]
    sentences = [opener, *(case.fill(sight) for sight in rng.sample(sights, min(len(sights), rng.randint(1, 2))))]
    if rng.random() < 0.4:
        looks = case.age if case.age < 16 else max(20, round(case.age, -1))
        sentences.append(f"{case.person.he} looks about {looks}")
    sentences.append(case.fill(rng.choice(BYSTANDER_CLOSINGS)))
    return _join(sentences), False


def _interpreter_text(case: _Case, rng: random.Random) -> tuple[str, bool]:
    """A Spanish call relayed in English by a language-line interpreter."""
    who = _relation(case, rng)
    if who.startswith("my "):
        sexed = case.scenario.female_only or case.scenario.male_only  # the caller's pronoun would read as the patient's
        who = f"{'their' if sexed else rng.choice(('her', 'his', 'their'))} {who.removeprefix('my ')}"
    age_phrase = rng.choice((f", {case.age},", f" ({case.age})", "")) if case.age else ", a newborn,"
    complaint = case.fill(rng.choice(case.scenario.complaints))
    sentences = [f"{rng.choice(INTERPRETER_LEADS)} {who}{age_phrase} {complaint}", *case.extras]
    sentences.append(rng.choice(INTERPRETER_NOTES))
    return _join(sentences), False


def _spanish_text(case: _Case, rng: random.Random) -> tuple[str, bool]:
    """A Spanish-speaking caller (generator_es)."""
    shown = case.vitals is not None and (bool(case.abnormal) or rng.random() < 0.2)
    vitals = (case.vitals, case.abnormal) if case.vitals is not None and shown else None
    scenario = case.scenario
    witnessed = scenario.name in BYSTANDER_SIGHTS
    female = case.person.sex == "F"
    negated = tuple(extra for extra in case.extras if extra in NEGATED and (female or extra != "not pregnant"))
    return spanish_call(scenario.name, scenario.esi_level, female, case.age, vitals, rng, witnessed, negated), shown


def _crew_text(case: _Case, rng: random.Random) -> tuple[str, bool]:
    unit = rng.choice(("Medic", "Rescue", "Engine", "Ambulance"))
    suffix = rng.choice(("yo", " yo", " year old", "y"))
    age_phrase = f"{case.age}{suffix} {case.person.sex}" if case.age else "newborn"
    complaint = case.fill(rng.choice(case.scenario.complaints))
    sentences = [f"{unit} {rng.randint(1, 60)} to dispatch, {age_phrase}, {complaint}", *case.extras]
    if case.vitals is not None:
        sentences.append(f"vitals {_dispatch_vitals(case.vitals, case.abnormal, case.age, rng)}")
    return _join(sentences), case.vitals is not None


def _nurse_text(case: _Case, rng: random.Random) -> tuple[str, bool]:
    age_phrase = f"{case.age}{case.person.sex}" if case.age else "newborn"
    complaint = case.fill(rng.choice(case.scenario.complaints))
    sentences = [f"Nurse line: {age_phrase} reporting that {complaint}", *case.extras]
    if case.vitals is not None:
        sentences.append(_dispatch_vitals(case.vitals, case.abnormal, case.age, rng))
    return _join(sentences), case.vitals is not None


def _note_patient(case: _Case, rng: random.Random, narrative: bool) -> str:
    """The patient as a triage note names them: '58 y/o M', 'A 23-year-old female', 'A 12-day-old boy'."""
    person, age = case.person, case.age
    if age == 0:
        days = rng.randint(5, 27)
        return f"A {days}-day-old {person.child_noun}" if narrative else f"{days} d/o {person.sex}"
    if narrative:
        noun = person.child_noun if age < 14 else rng.choice((person.adult_noun, person.person))
        return f"A{'n' if str(age)[0] == '8' or age in (11, 18) else ''} {age}-year-old {noun}"
    return rng.choice(
        (f"{age} y/o {person.sex}", f"{age} y/o {person.sex}", f"{age}yo {person.sex}", f"{age}{person.sex}")
    )


def _note_opening(case: _Case, rng: random.Random) -> str:
    """The first sentence of a triage note: who, how they came, and the chief complaint."""
    complaint = case.fill(rng.choice(case.scenario.note or case.scenario.complaints))
    narrative = rng.random() < 0.4
    who = _note_patient(case, rng, narrative)
    parent = rng.choice(("mother", "father", "parents", "grandmother"))
    if rng.random() < AMBULANCE_SHARE[case.scenario.esi_level]:
        if narrative:
            return rng.choice(
                (f"{who} is brought in by ambulance with {complaint}", f"{who} arrives by EMS, {complaint}")
            )
        forms = [f"{who} BIBA, {complaint}", f"{who} arrives via EMS, {complaint}"]
        return rng.choice(forms if case.scenario.esi_level == 1 else [*forms, f"{who} BIBA c/o {complaint}"])
    if case.scenario.esi_level == 1:
        return f"{who} {rng.choice(('carried in by family', 'brought in by family'))}, {complaint}"
    if rng.random() < 0.35:  # how the others came: at every level, so that it is no cue to the level
        if narrative:
            arrival = rng.choice(("arrives by private car with", "walks in with", "is driven in by family with"))
            return f"{who} {arrival} {complaint}"
        return (
            f"{who}, {rng.choice(('walk-in', 'arrived by private car', 'came by car', 'ambulatory'))}, c/o {complaint}"
        )
    if narrative:
        if case.age < 14:
            return f"{who} is brought in by {case.person.his} {parent} for {complaint}"
        return rng.choice(
            (
                f"{who} presents to the emergency department complaining of {complaint}",
                f"{who} presents to the ED with {complaint}",
                f"{who} comes to the emergency department with {complaint}",
            )
        )
    if case.age < 14 and rng.random() < 0.5:
        return f"{who} brought in by {parent} for {complaint}"
    if complaint.startswith("s/p "):
        return rng.choice((f"{who} presents {complaint}", f"{who} {complaint}", f"Pt is a {who} {complaint}"))
    return rng.choice(
        (
            f"{who} c/o {complaint}",
            f"Pt is a {who} c/o {complaint}",
            f"{who} presents with {complaint}",
            f"{who} w/ {complaint}",
        )
    )


def _and(items: list[str] | tuple[str, ...]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _note_history(case: _Case, rng: random.Random) -> list[str]:
    """The patient's quoted words, past history and allergies, as a triage nurse charts them."""
    sentences = []
    quotes = case.scenario.quotes
    if quotes and case.age >= 6 and rng.random() < 0.45:
        quote, he = rng.choice(quotes), case.person.he
        sentences.append(
            rng.choice(
                (f'"{quote}," {he} says', f'Pt states, "{quote}."', f'"{quote}," per pt', f'{he} states "{quote}."')
            )
        )
    if case.age >= 18 and rng.random() < 0.5:
        history = _and(rng.sample(PMH_CHOICES, rng.randint(1, 2)))
        sentences.append(rng.choice((f"PMH {history}", f"PMH: {history}", f"hx of {history}")))
    elif rng.random() < 0.2:
        sentences.append(
            rng.choice(("no significant PMH", "PMH: none")) + (", immunizations UTD" if case.age < 14 else "")
        )
    if rng.random() < 0.35:
        sentences.append(rng.choice(ALLERGY_CHOICES))
    return sentences


def _note_findings(case: _Case, rng: random.Random, pain_said: bool) -> list[str]:
    """Mental status and pain score, charted at every level where they do not contradict the scenario."""
    scenario, sentences = case.scenario, []
    alert = "A&O x 4" in _distractors(scenario, True) and not any("a&o" in extra.lower() for extra in case.extras)
    if scenario.esi_level >= 2 and alert and rng.random() < 0.35:
        sentences.append(rng.choice(("alert", "A&O x 4", "awake and alert", "alert and oriented x 3")))
    if scenario.esi_level >= 2 and case.age >= 4 and not pain_said and rng.random() < 0.45:
        low, high = (
            (7, 10)
            if scenario.name in SEVERE_PAIN
            else (0, 2)
            if scenario.name in PAINLESS
            else (PAIN_BY_LEVEL[scenario.esi_level])
        )
        score = rng.randint(low, high)
        sentences.append(rng.choice((f"pain {score}/10", f"Pain score {score}/10", f"rates pain {score}/10")))
    return sentences


def _note_plan(scenario: Scenario, rng: random.Random) -> str:
    """What the triage nurse expects the case to need (decision point C only)."""
    extra = list(scenario.non_resources[: rng.randint(0, len(scenario.non_resources))])
    if scenario.resources:
        needed = _and(scenario.resources)
        return f"{rng.choice(('Anticipate', 'Will need', 'Likely needs'))} {needed}" + (
            f"; {_and(extra)}" if extra else ""
        )
    return f"{rng.choice(('Plan:', 'Needs only'))} {_and(extra) if extra else 'exam'}"


def _note_text(case: _Case, rng: random.Random) -> tuple[str, bool]:
    """An emergency-department triage note."""
    scene = case.scenario.esi_level == 1  # its details are what bystanders see, not what a triage nurse charts
    extras = [extra for extra in case.extras if not scene or extra in NOTE_DISTRACTOR_TEXTS]
    opening = _note_opening(case, rng)
    sentences = [opening, *extras, *_note_findings(case, rng, "/10" in opening), *_note_history(case, rng)]
    if case.scenario.decision_point == "C" and rng.random() < 0.25:
        sentences.append(_note_plan(case.scenario, rng))
    if case.vitals is not None:
        sentences.append(_note_vitals(case.vitals, case.age, rng))
    return _join(sentences), case.vitals is not None


_ARRESTS = frozenset(("cardiac-arrest", "cpr-in-progress"))
_RENDER = {
    "caller": _caller_text,
    "transcript": _transcript_text,
    "bystander": _bystander_text,
    "spanish": _spanish_text,
    "interpreter": _interpreter_text,
    "crew": _crew_text,
    "nurse": _nurse_text,
    "triage-note": _note_text,
}
_BY_LEVEL = {level: tuple(s for s in SCENARIOS if s.esi_level == level) for level in ESI_LEVELS}


def generate_message(rng: random.Random, scenario: Scenario | None = None) -> GeneratedMessage:
    """Draw one message (of a random scenario unless one is given)."""
    if scenario is None:
        level = rng.choices(ESI_LEVELS, weights=LEVEL_WEIGHTS)[0]
        scenario = rng.choice(_BY_LEVEL[level])
    person = PEOPLE[1] if scenario.female_only else PEOPLE[0] if scenario.male_only else rng.choice(PEOPLE)
    age = rng.randint(*scenario.ages)
    style = rng.choices(STYLES, weights=STYLE_WEIGHTS)[0]
    if style == "bystander" and scenario.name not in BYSTANDER_SIGHTS:
        style = "caller"
    note = style == "triage-note"
    extras = [detail for detail in scenario.details if rng.random() < 0.4]
    distractors = _distractors(scenario, note)
    if distractors and rng.random() < (0.5 if scenario.esi_level >= 3 else 0.2):
        extras.append(rng.choice(distractors))
    kind = scenario.vitals
    if note and kind == "none" and scenario.name not in _ARRESTS:  # a triage nurse takes vital signs
        kind = "normal" if scenario.esi_level >= 2 else "extreme"
    shown = kind == "danger-always" or (kind != "none" and rng.random() >= (0.1 if note else 0.35))
    values, abnormal = _vital_values(kind.removesuffix("-always"), rng, age, scenario.fever) if shown else (None, set())
    case = _Case(scenario, person, age, rng.randint(2, 5), [], values, abnormal)
    case.extras.extend(case.fill(extra) for extra in extras)
    text, vitals_shown = _RENDER[style](case, rng)
    if style != "transcript":  # a transcript has its own misspellings and no case
        text = _typos(text, rng) if rng.random() < 0.15 else text
        text = text.lower() if rng.random() < 0.2 else text
    answer = rng.randint(*scenario.answer_tokens) + (20 if vitals_shown else 0) + 8 * len(extras)
    language = "es" if style == "spanish" else "en"
    return GeneratedMessage(text, scenario.esi_level, scenario.decision_point, scenario.name, style, answer, language)


def generate(count: int, seed: int = 0) -> Iterator[GeneratedMessage]:
    """`count` messages, the same for the same seed; every scenario appears (round-robin, then random)."""
    rng = random.Random(seed)
    for index in range(count):
        scenario = SCENARIOS[index] if index < len(SCENARIOS) else None
        yield generate_message(rng, scenario)


def write_csv(path: Path, count: int, seed: int = 0) -> int:
    """Write a generated training set as CSV (text, esi_level, decision_point, scenario, style, answer_tokens,
    language)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text", "esi_level", "decision_point", "scenario", "style", "answer_tokens", "language"])
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
                    message.language,
                ]
            )
            written += 1
    return written
