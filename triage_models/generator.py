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

GENERATOR_VERSION = "gen-2026.11.2"

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
)

ESI_LEVELS = (1, 2, 3, 4, 5)
LEVEL_WEIGHTS = (0.10, 0.24, 0.26, 0.22, 0.18)
"""Share of each level among generated messages: ESI 1-2 over-represented so the rare levels are learned, and
ESI 4-5 (rare in ED records) well represented so decision point C is learned."""

STYLES = ("caller", "crew", "nurse", "triage-note")
STYLE_WEIGHTS = (0.30, 0.20, 0.15, 0.35)

_BREATHING = r"breath|wheez|sob\b|chok|asthma|copd|resp|apneic|gasp|throat|cpr"
_CONSCIOUS = r"conscious|unrespons|passed out|knocked|\bloc\b|syncope|arrest|pulse|cpr|sleepy|drowsy|somnolent|letharg"
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
    )
)
NOTE_DISTRACTOR_TEXTS = frozenset(text for text, _ in NOTE_DISTRACTORS)
PMH_CHOICES = ("HTN", "HLD", "DM2", "hypothyroidism", "GERD", "OA", "seasonal allergies", "depression", "asthma")
ALLERGY_CHOICES = ("NKDA", "NKDA", "NKA", "allergic to PCN", "allergy: sulfa")


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


def _caller_text(case: _Case, rng: random.Random) -> tuple[str, bool]:
    if 0 < case.age < 16:
        relations = case.person.child_relations
    else:  # nobody's 20-year-old mother, nor 80-year-old son
        unlikely = ("my father", "my mother") if case.age < 35 else ("my son", "my daughter") if case.age > 60 else ()
        relations = tuple(relation for relation in case.person.relations if relation not in unlikely)
    relation = rng.choice(relations)
    opener = rng.choice(("Caller states", "Caller reports", "Caller says", "911 call:", ""))
    age_phrase = rng.choice((f", {case.age} years old", f" ({case.age})", "")) if case.age else ", a newborn"
    complaint = case.fill(rng.choice(case.scenario.complaints))
    sentences = [f"{opener} {relation}{age_phrase}: {complaint}".strip(), *case.extras]
    shown = case.vitals is not None and rng.random() < 0.3
    if case.vitals is not None and shown:
        sentences.append(f"caller's monitor shows {_dispatch_vitals(case.vitals, case.abnormal, case.age, rng)}")
    return _join(sentences), shown


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
_RENDER = {"caller": _caller_text, "crew": _crew_text, "nurse": _nurse_text, "triage-note": _note_text}
_BY_LEVEL = {level: tuple(s for s in SCENARIOS if s.esi_level == level) for level in ESI_LEVELS}


def generate_message(rng: random.Random, scenario: Scenario | None = None) -> GeneratedMessage:
    """Draw one message (of a random scenario unless one is given)."""
    if scenario is None:
        level = rng.choices(ESI_LEVELS, weights=LEVEL_WEIGHTS)[0]
        scenario = rng.choice(_BY_LEVEL[level])
    person = PEOPLE[1] if scenario.female_only else PEOPLE[0] if scenario.male_only else rng.choice(PEOPLE)
    age = rng.randint(*scenario.ages)
    style = rng.choices(STYLES, weights=STYLE_WEIGHTS)[0]
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
    if rng.random() < 0.15:
        text = _typos(text, rng)
    if rng.random() < 0.2:
        text = text.lower()
    answer = rng.randint(*scenario.answer_tokens) + (20 if vitals_shown else 0) + 8 * len(extras)
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
