"""Spanish wording for every red-flag phrase rule (same ids, levels and meaning as rules.PHRASE_RULES)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SpanishWording:
    """The Spanish patterns (and context, when the English rule has one) of one phrase rule.

    Patterns are matched with re.IGNORECASE against accent-folded, lower-cased text (á é í ó ú ü ñ become a e i o
    u u n, one character for one), so they are written without accents. Every gap is bounded.
    """

    patterns: tuple[str, ...]
    context: tuple[str, ...] = ()


# Negation scope, as in text.is_negated: a trigger within the window before a finding negates it, unless a
# pseudo-negation ("no se que paso") covers it or a clause break ("pero", a comma, "y") comes between.
SPANISH_NEGATION_TRIGGERS = (
    r"\b(?:no|sin|nunca|jamas|ni|tampoco|ningun|ninguna|ninguno|niega|niegan|negaba|nego|negando|no tiene|no hay"
    r"|no presenta|nada de|descartad[oa]|se descarto|negativ[oa] (?:para|a)|libre de|ausencia de)\b"
)
# Phrases with a negation word that negate nothing clinical: the caller does not know, does not speak English,
# the patient "is not moving" or "is not well", and "no para de sangrar" (keeps bleeding) affirms what follows.
SPANISH_PSEUDO_NEGATIONS = (
    r"\b(?:no se(?= *(?:[.,;:!?]|$))|(?:yo )?no se (?:que|si|como|cuando|donde|cuanto|cuanta|cuantos|cuantas"
    r"|por que|porque|quien|cual|nada|bien|exactamente|muy bien|decirle|explicarle|lo que)"
    r"|no lo se|no sabe(?:mos|n)? (?:que|si|como|cuando|donde|cuanto|por que|quien|nada|bien)"
    r"|no (?:estoy|estamos|esta|estan) segur[oa]s?|no tengo (?:ni )?idea|ni idea|no entiend[oe]|no le entiendo"
    r"|no (?:hablo|habla|hablan|hablamos) (?:bien |mucho )?(?:ingles|espanol)|no (?:hay|esta) nadie"
    r"|no (?:se )?(?:mueve|movia|ha movido)|no (?:se )?(?:siente|sentia|ha sentido|anda|esta|se ve|se encuentra) bien"
    r"|no (?:para|paraba|ha parado|deja|dejaba|ha dejado) de|sin parar|sin querer|sin razon|sin motivo"
    r"|sin (?:previo )?aviso|sin saber|nunca (?:le )?(?:habia|ha) (?:pasado|tenido)|nunca antes|no me acuerdo"
    r"|no recuerd[oa]|no se acuerda)\b"
)
# "o" and "ni" continue a negated list ("no tiene fiebre ni tos"), as "or" does in English; "y" ends it.
SPANISH_SCOPE_BREAKERS = (
    r"[.,;:!?\u00bf\u00a1\n]|\b(?:pero|sin embargo|no obstante|aunque|excepto|salvo|sino|y|e|ahora|luego|entonces"
    r"|despues|asi que|pues|mas bien|mientras que|ya que|porque)\b"
)
SPANISH_NEGATIVE_FORM = r"\b(?:no|ni|sin|nunca|tampoco|dejo de|deja de|ha dejado de|paro de|se paro|se detuvo)\b"
"""Which patterns state a red flag as a negation ("no respira", "sin pulso"): their matches are masked before
negation scopes are looked for, as rules._NEGATIVE_FORM does for the English ones."""

# Gaps between two findings, or between a subject and what is said of it, never cross a negation word: "el brazo
# izquierdo no esta debil" is no stroke sign, and a red flag worded as a negation is masked whole, so its span must
# not swallow the negation of the finding after it ("no le ha bajado la regla, no tiene sangrado").
_NEGATION_WORD = r"(?:no|ni|sin|nunca|jamas|tampoco|niega|nego)\b"


def _gap(chars: int, lazy: bool = False) -> str:
    """Up to `chars` characters within one sentence, stopping before any negation word."""
    return rf"(?:(?!\b{_NEGATION_WORD})[^.]){{0,{chars}}}" + ("?" if lazy else "")


def _words(count: int, space_first: bool = True) -> str:
    """Up to `count` words (fewest first), none of them a negation word."""
    word = rf"(?!{_NEGATION_WORD})\w+"
    return (rf"(?: {word})" if space_first else rf"(?:{word} )") + rf"{{0,{count}}}?"


# Shared wording. Every gap is bounded (_gap, _words) so matching stays linear-time.
_NUMBER_1_12 = r"(?:[1-9]|1[0-2]|un|una|uno|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce)"
_CHILD_WORD = (
    r"(?:bebe|bebes|bebita|bebito|nene|nena|nino|nina|ninos|ninas|ninito|ninita|criatura|chiquillo|chiquilla"
    r"|chamaco|chamaca|chamaquito|chamaquita|escuincle|chavito|chavita|huerco|huerca|pibe|piba|infante|lactante"
    r"|recien nacid[oa]s?|menor de edad|pediatric[oa])"
)
_FEVER = (
    r"\bfiebre\b|\bcalentura\b|\bfebril\b|\bafiebrad[oa]\b|\bvolando en fiebre\b|\bhirviendo en fiebre\b"
    r"|\btemperatura (?:alta|elevada|muy alta)\b|\btiene temperatura\b|\bardiendo de fiebre\b",
    r"\b(?:temperatura|temp|t)\.?(?: de| es| esta| estaba| en| como| marca| marco| llego a| arriba de|:){0,3} ?"
    r"(?:100\.[4-9]|10[1-6](?:\.\d)?|3[89](?:[.,]\d)?|4[01](?:[.,]\d)?) ?(?:°|grados)? ?[cf]?\b",
)
_CHILD = (
    r"\b(?:de|tiene|cumplio|cumple) " + _NUMBER_1_12 + r" (?:anos|ano|anitos|anito)\b",
    r"\b(?:tiene )?" + _NUMBER_1_12 + r" (?:meses|mes|semanas|semana|dias|dia) de (?:nacid[oa]|vida|edad)\b",
    r"\b" + _CHILD_WORD + r"\b",
    r"\b(?:mi|su|nuestr[oa]) (?:hij[oa]|hijit[oa]|chiquit[oa]|pequen[oa]|nieto|nieta|nietecit[oa])\b",
    r"\b(?:el|la) (?:chiquit[oa]|pequen[oa]|pequenit[oa])\b",
)
_DAYS_0_27 = r"(?:\d|1\d|2[0-7]|un|uno|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|doce|quince|veinte)"
_WEEKS_1_3 = r"(?:[1-3]|una|dos|tres)"
_NEONATE = (
    r"\b" + _DAYS_0_27 + r" dias? de (?:nacid[oa]|vida|edad)\b",
    r"\b" + _WEEKS_1_3 + r" semanas? de (?:nacid[oa]|vida|edad)\b",
    r"\b" + _CHILD_WORD + r" de (?:" + _DAYS_0_27 + r" dias?|" + _WEEKS_1_3 + r" semanas?)\b",
    r"\brecien nacid[oa]s?\b|\bneonat",
    r"\bnacio (?:ayer|hoy|anoche|la semana pasada|hace " + _DAYS_0_27 + r" dias?|hace " + _WEEKS_1_3 + r" semanas?)\b",
)
_WEEKS_4_12 = r"(?:[4-9]|1[0-2]|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce)"
_MONTHS_1_2 = r"(?:[12]|un|uno|dos|mes y medio)"
_INFANT = (
    *_NEONATE,
    r"\b" + _WEEKS_4_12 + r" semanas de (?:nacid[oa]|vida|edad)\b",
    r"\b" + _CHILD_WORD + r" de (?:" + _WEEKS_4_12 + r" semanas|" + _MONTHS_1_2 + r" mes(?:es)?)\b",
    r"\b" + _MONTHS_1_2 + r" mes(?:es)? de (?:nacid[oa]|vida|edad)\b",
    r"\b(?:bebe|nin[oa]|hij[oa]|nene|nena)\b"
    + _gap(20)
    + r"\btiene (?:"
    + _MONTHS_1_2
    + r" mes(?:es)?|"
    + _WEEKS_4_12
    + r" semanas)\b",
)
_ANTICOAGULANT = (
    r"\banticoagula\w{0,6}|\b(?:adelgaz|diluy|dilu|aguad|aclar)\w{0,6} (?:de )?(?:la )?sangre\b"
    r"|\bsangre (?:rala|delgada|aguada)\b|\bwarfarina?\b|\beliquis\b|\bxarelto\b|\bcoumadin\b|\bsintrom\b"
    r"|\bapixaban\b|\brivaroxaban\b|\bacenocumarol\b|\bheparina\b|\bclopidogrel\b"
)
_ELDERLY = (
    r"\b(?:6[5-9]|[7-9]\d|1[01]\d) ?anos\b",
    r"\b(?:ancian[oa]s?|ancianit[oa]s?|viejit[oa]s?|abuel[oa]s?|abuelit[oa]s?|adult[oa]s? mayor(?:es)?"
    r"|persona mayor|tercera edad|asilo|casa de reposo|hogar de ancianos|residencia de ancianos|geriatric[oa])\b",
    _ANTICOAGULANT,
)
_HISTORY_AHEAD = (
    r"(?![^.]{0,25}\b(?:hace (?:\d{1,2}|un|una|unos|unas|dos|tres|cuatro|cinco|varios|muchos) (?:anos?|meses|mes)"
    r"|hace anos|hace mucho|en (?:19|20)\d\d|el ano pasado)\b)"
)
_LIMB_AHEAD = (
    r"(?! (?:en|del|de)(?: el| la| los| las| su| sus| mi)? (?:pie|pies|pierna|piernas|brazo|brazos|mano|manos"
    r"|muneca|munecas|tobillo|tobillos|dedo|dedos|extremidad|extremidades)\b)"
)
# Bodies of water and the like, for drowning and diving.
_WATER = (
    r"(?:alberca|piscina|pileta|agua|rio|lago|mar|playa|tina|banera|canal|presa|laguna|arroyo|estanque|poza"
    r"|jacuzzi|cubeta|balde)"
)
_CYANOSIS_BEFORE = (
    r"(?<!rodilla )(?<!pierna )(?<!brazo )(?<!dedo )(?<!pie )(?<!mano )(?<!ojo )(?<!una )(?<!tobillo )"
    r"(?<!muneca )(?<!la una )(?<!herida )(?<!moreton )(?<!la pared )"
)
_PERSON_TARGET = (
    r"(?:su|sus|mi|mis|el|la|al|a la|a su|a sus|a mi|a mis) (?:hij[oa]s?|nin[oa]s?|bebe|chamac[oa]|abuel[oa]"
    r"|mama|papa|madre|padre|suegr[oa]|herman[oa])"
)

_A_RULES: dict[str, SpanishWording] = {
    "A-NOT-BREATHING": SpanishWording(
        (
            # "no respira bien" is breathing badly (distress), not an arrest.
            r"\b(?:no|ni|tampoco) (?:siquiera )?(?:esta |estaba )?respir(?:a|aba|ando|o)\b"
            r"(?! (?:bien|normal|como siempre|muy bien|tan bien|por la nariz|por la boca|hondo|profundo))",
            r"\b(?:dejo|deja|ha dejado|dejaba|paro|ha parado) de respirar\b",
            r"\bse (?:le )?(?:paro|detuvo|fue|corto) la respiracion\b|\bparo respiratorio\b",
            r"\bsin respira(?:r|cion)\b|\bno (?:tiene|hay) respiracion\b(?! (?:agonic\w{0,2}|anormal|ruidosa"
            r"|dificultosa|rara|extrana|con))",
            r"\bno (?:lo |la |le )?(?:veo|siento|escucho|oigo|vemos) (?:que )?respir(?:ar|e|ando)\b",
            r"\b(?:apenas|casi no|casi ni) respira\b",
            r"\bapneic[oa]\b|\ben apnea\b|\bagonic[oa]s?\b|\bbocanadas\b",
            # Gasping as one wakes, or while awake and talking, is breathlessness: an awake patient is not in arrest.
            r"(?<!desperto )(?<!despierta )(?<!despertando )(?<!despertar )\bboquea(?:ndo|ba)?\b"
            r"(?![^.]{0,40}?\b(?:(?:esta|sigue) (?:despiert[oa]|sentad[oa]|hablando|consciente)|(?:me|nos) habla)\b)",
            # Abnormal breathing in someone who does not respond is treated as not breathing (dispatch protocol).
            r"\brespira (?:muy )?(?:raro|feo|extrano|rarito|con dificultad|roncando"
            r"|como ronquido)\b" + _gap(40, lazy=True) + r"\b(?P<also>no (?:responde|despierta|reacciona|contesta))\b",
            r"\bno (?:responde|despierta|reacciona"
            r"|contesta)\b" + _gap(40, lazy=True) + r"\b(?P<also>respira (?:muy )?(?:raro|feo"
            r"|extrano|rarito|con dificultad|roncando|como ronquido))\b",
        ),
    ),
    "A-NO-PULSE": SpanishWording(
        (
            r"\bno (?:tiene|hay|se (?:le )?(?:siente|encuentra)|le (?:siento|encuentro|hallo|encontramos|sentimos"
            r"|encuentran)) (?:el |ningun |nada de )?pulso\b" + _LIMB_AHEAD,
            r"(?<!pie )(?<!pierna )(?<!brazo )(?<!mano )(?<!frio y )(?<!fria y )(?<!palido y )(?<!palida y )"
            r"(?<!frio, )(?<!fria, )\bsin pulso\b" + _LIMB_AHEAD,
            r"\bparo (?:cardiac[oa]|cardiorrespiratorio|del corazon|al corazon)\b",
            r"\b(?:le dio|tuvo|le esta dando|sufrio|hizo|le vino) un paro\b(?! (?:respiratorio|de \w+))"
            + _HISTORY_AHEAD,
            r"\bcodigo azul\b|\bsin signos (?:vitales|de vida)\b",
            r"\bno (?:tiene|hay|le (?:siento|escucho|oigo|encuentro)) (?:el |los )?(?:latido|latidos|corazon"
            r"|signos vitales|senales de vida|signos de vida)\b",
            r"\bno le late el corazon\b|\b(?:su|el) corazon no (?:le )?late\b|\bcorazon dejo de latir\b",
            r"\bse le (?:paro|detuvo) el corazon\b|\bel corazon se le (?:paro|detuvo)\b",
            r"\b(?:esta|creo que esta|parece que esta|ya esta|se ve) muert[oa]\b"
            r"|\bcreo que (?:ya )?se (?:nos |me )?murio\b",
            r"(?<!historia de )(?<!antecedentes de )(?:\basistolia\b|\bfibrilacion ventricular\b"
            r"|\bactividad electrica sin pulso\b)",
        ),
    ),
    "A-RESUSCITATION": SpanishWording(
        (
            # Done or under way, not an instruction or a question ("sabe hacer RCP?", "empiece compresiones").
            r"\b(?:haciendo|hago|hacen|hacemos|hicieron|hizo|hice|haciendole|dando|doy|dan|damos|dieron|dandole"
            r"|empez(?:amos|aron|o|e)|comenz(?:amos|aron|o|e)|inici(?:amos|aron|o|e|ando)|sigue|siguen|seguimos|sigo"
            r"|continua|continuan|continuamos|continuando|practicando|practicaron|aplicando"
            r"|aplicaron)\b" + _gap(25) + r"(?<!curso de )(?<!cursos de )(?<!clase de )(?<!clases de )"
            r"(?<!taller de )(?<!certificado de )(?<!certificacion de )\b(?:rcp|reanimacion cardiopulmonar"
            r"|resucitacion cardiopulmonar|masaje cardiaco|compresiones(?: toracicas| en el pecho| de pecho)?"
            r"|respiracion (?:de )?boca a boca|boca a boca)\b",
            r"\brcp (?:en curso|en progreso|en marcha|iniciada|activa|continua|por (?:testigos|familiares|bomberos"
            r"|la familia|paramedicos|la policia))\b",
            r"\b(?:lo|la|le|les) (?:desfibrilaron|desfibrilo|desfibrile|desfibrilamos|cardiovirtieron)\b",
            r"\b(?:dea|desfibrilador externo|desfibrilador automatico)\b" + _gap(20) + r"\b(?P<also>(?:le |lo "
            r"|la )?(?:dio"
            r"|dieron|dimos|di|aplico|aplicamos)" + _words(2) + r" (?:descargas?|choques?)|descarg\w{0,5}"
            r"|recomend\w{0,4} (?:una )?descarga)\b",
            r"\b(?:le |lo |la )?(?:dieron|dimos|di) (?:una |un |dos |tres |\d+ )?descargas?\b(?! electric)",
            r"\bmarcapasos (?:externo|transcutaneo)\b|\bestimulacion transcutanea\b|\bdescompresion con aguja\b",
            r"\bambu\b|\bambuse\w{0,4}|\bbolsa[- ]valvula[- ]mascarilla\b|\bventilando con (?:ambu|bolsa)\b",
            r"\bintubad[oa]\b(?![^.]{0,20}\b(?:antes|en el pasado|hace (?:\d+|un|una|unos|dos|tres) (?:anos?|meses)"
            r"|de nin[oa]|el ano pasado))|\b(?:lo|la|le) intubaron\b",
            r"\bmascarilla laringea\b|\btubo endotraqueal\b|\bi-gel\b",
            r"\bretorno de (?:la )?circulacion espontanea\b|\bpost ?paro\b|\bposparo\b",
            r"\b(?:lo|la|le) (?:revivieron|resucitaron)\b|\b(?:lo|la|le) (?:estan|estamos|esta|estoy) (?:reanimando"
            r"|resucitando|reviviendo)\b",
        ),
    ),
    "A-UNRESPONSIVE": SpanishWording(
        (
            r"(?<!normalmente )(?<!siempre )(?<!usualmente )\binconsciente\b",
            r"\bsin (?:conocimiento|sentido|conciencia|respuesta)\b",
            # "no responde" about a person; not the phone, the door, or a treatment.
            r"(?<!normalmente )(?<!siempre )(?<!usualmente )(?<!nunca )\b(?:no|ni|tampoco) (?:me |nos |le |les )?"
            r"(?:responde|reacciona|contesta|despierta|se despierta|abre los ojos|quiere despertar)\b"
            r"(?! (?:el |al |a |a la |a los |a mis |mis |los |las |sus |la |bien )?(?:telefono|celular|cel|mensajes?"
            r"|llamadas?|whatsapp|textos?|correos?|tratamiento|medicamentos?|medicinas?|antibioticos?|pastillas"
            r"|puerta|preguntas?|temprano))",
            r"\bno (?:lo|la|le) (?:puedo|podemos|pueden|pude|pudimos) despertar\b|\bno (?:puedo|podemos|pueden)"
            r" despertarl[oa]\b|\bno hay (?:manera|forma) de despertarl[oa]\b",
            r"\bno (?:vuelve|ha vuelto|volvia|regresa) en si\b",
            r"\b(?:esta|sigue|continua|todavia esta|aun esta) (?:desmayad[oa]|privad[oa])\b",
            r"\b(?:solo|nada mas|nomas|unicamente) (?:responde|reacciona) al dolor\b"
            r"|\b(?:responde|reacciona) (?:solo|nada mas|unicamente) al dolor\b",
        ),
    ),
    "A-CHOKING": SpanishWording(
        (
            # "se ahoga al caminar" is breathlessness on effort, not choking.
            r"\bse (?:esta|estaba|esta como) (?:ahogando|atragantando|atorando)\b(?! (?:al|cuando|con el|de) (?:caminar"
            r"|camina|subir|sube|ejercicio|esfuerzo|hablar|toser))|\bahogandose\b|\batragantandose\b",
            r"\bse (?:ahogo|ahoga|atraganto|atraganta|atoro|atora|trabo) con\b",
            r"\bse (?:atraganto|atraganta)\b|\batragantad[oa]\b",
            r"\b(?:atorad[oa]|atascad[oa]|trabad[oa]|atravesad[oa]|atoro|atora|atasco|trabo"
            r"|atraveso)\b" + _gap(25, lazy=True) + r"\ben (?:la|su|mi) garganta\b",
            r"\bse le (?:atoro|atasco|atraveso|trabo|fue por el otro lado)\b",
            r"\bno (?:puede|pudo|podia) (?:hablar|respirar) ni toser\b|\bno (?:puede|pudo|podia) (?:toser|respirar)"
            r" ni hablar\b",
            r"\bobstruccion de (?:la )?via aerea\b|\bvia aerea (?:obstruida|bloqueada|tapada)\b",
            # "esta morado" is also a bruise ("el dedo esta morado"): taken as cyanosis only beside a breathing sign.
            r"\bse (?:esta poniendo|puso|pone|ha puesto|volvio|le puso) (?:todo |toda |bien |muy )?(?:moradit[oa]"
            r"|morad[oa]|azul|azulad[oa]|azulit[oa]|negrit[oa])\b",
            _CYANOSIS_BEFORE + r"\b(?:esta|se ve) (?:todo |toda |bien |muy )?(?:azul|azulad[oa]|azulit[oa])\b",
            r"\besta (?:todo |toda |bien |muy )?(?:moradit[oa]|morad[oa])\b(?=" + _gap(30) + r"\b(?:respir|ahog|aire"
            r"|atragant|atora|tose|toser|responde|reacciona))",
            r"\b(?:respir|ahog|aire|atragant|atora|tose|toser|responde"
            r"|reacciona)\w{0,6}\b" + _gap(30) + r"\besta (?:todo "
            r"|toda |bien |muy )?(?:moradit[oa]|morad[oa])\b",
            r"\b(?:labios|boca|cara|carita|labiecitos|trompita|boquita) (?:\w+ )?(?:morad[oa]s?|azul(?:es)?"
            r"|azulad[oa]s?|moradit[oa]s?)\b",
            r"\bcianotic[oa]\b|\bcianosis\b",
        ),
    ),
    "A-SEVERE-BLEEDING": SpanishWording(
        (
            r"\bsangr(?:a|ando) (?:muy |bien )?(?:mucho|muchisimo|bastante|demasiado|un monton|a chorros|sin parar"
            r"|horrible|muy feo|feo|a borbotones|como loco|sin control|como llave|como manguera)\b",
            r"\b(?:hemorragia|sangrado) (?:muy )?(?:fuerte|abundante|masiv[oa]|grave|severa?|incontrolable"
            r"|que no para|intensa?|profus[oa])\b",
            r"\b(?:mucha|muchisima|tanta|harta|bastante)(?: \w+)?,? sangre\b|\bun charco de sangre\b"
            r"|\bsangre por todos lados\b|\bsangre por todas partes\b|\bbanad[oa] en sangre\b|\bsangre a chorros\b",
            r"\bno (?:le )?(?:para|deja) de sangrar\b|\bno (?:se le )?(?:para|detiene|quita|corta) (?:el sangrado"
            r"|la sangre|la hemorragia)\b|\bno (?:podemos|puedo|pueden|hemos podido) (?:parar|detener|controlar"
            r"|pararle|detenerle|controlarle) (?:el sangrado|la sangre|la hemorragia)\b",
            r"\bamputad[oa]\b|\bamputacion\b|\bcercenad[oa]\b|\b(?:le|se) (?:arranco|volo|cerceno|mocho) (?:el|la"
            r"|los|las|un|una|dos|tres) (?:dedos?|mano|brazo|pierna|pie|oreja)\b",
            r"\bhemorragia\b(?! (?:nasal|por la nariz|subconjuntival|en el ojo|digestiva))" + _HISTORY_AHEAD,
        ),
    ),
    "A-ANAPHYLAXIS": SpanishWording(
        (
            r"\banafila(?:xia|ctic[oa])\b|\b(?:choque|shock) anafilactico\b",
            # "garganta inflamada" is an ordinary sore throat, so swelling of the throat is worded as closing.
            r"\bse le (?:esta )?(?:cierra|cerro|cerrando|hincha|hincho|hinchando) la garganta\b",
            r"\bgarganta (?:se le |se )?(?:esta )?(?:cerrando|cierra|cerro|cerrada|apretada)\b",
            r"\bse le (?:esta |estan )?(?:hinch|inflam)(?:o|aron|a|an|ando) (?:la lengua|los labios|el labio"
            r"|la boca)\b",
            r"\b(?:lengua|labios?) (?:se le |se )?(?:esta |estan )?(?:hinch|inflam)\w{0,6}\b",
            r"\bhinchazon (?:de|en) (?:la )?(?:garganta|lengua)\b",
            r"\bse le (?:hincho|hincharon|esta hinchando|estan hinchando)\b" + _gap(20) + r"\b(?:la garganta"
            r"|la lengua)\b",
        ),
    ),
    "A-SEIZURE-ONGOING": SpanishWording(
        (
            r"\b(?:sigue|continua|todavia esta|aun esta|esta todavia|sigue y sigue) (?:convulsionando"
            r"|con (?:la |las )?convulsion(?:es)?|con el ataque|con la crisis|teniendo (?:la |una )?convulsion)\b",
            r"\bno (?:le )?(?:para|deja|paran|dejan|ha parado|ha dejado) (?:de convulsionar|la convulsion"
            r"|las convulsiones|el ataque)\b",
            r"\bla convulsion no (?:para|se (?:le )?quita|termina|se detiene|ha parado)\b",
            r"\bconvulsiona(?:ndo)? sin parar\b|\bconvulsionando (?:desde hace|hace|por|mas de) (?:\d+|cinco|diez"
            r"|quince|veinte|varios) minutos\b",
            r"\bestado epileptico\b|\bstatus epilepticus\b|\bestatus epileptico\b",
        ),
    ),
    "A-HANGING-DROWNING": SpanishWording(
        (
            r"\bahorcad[oa]\b(?! por)|\bse (?:ahorco|esta ahorcando)\b|\bse colgo (?:de|del|con)\b"
            r"|\bse colgo(?= *(?:[.,;!?]|$))"
            r"|\b(?:(?:lo|la) )?encontr\w{0,5}(?: a \w+(?: \w+)?)? colgad[oa]\b|\besta colgad[oa] (?:de|del)\b"
            r"|\bcolgad[oa] (?:del cuello|de una (?:soga|cuerda|viga|sabana)|del techo|de la regadera)\b",
            r"\b(?:casi )?se (?:esta |estaba )?ahog(?:ando|o|a)\b" + _gap(30) + r"\b" + _WATER + r"\b",
            r"\b" + _WATER + r"\b" + _gap(40) + r"\b(?:casi )?se (?:esta |estaba )?ahog(?:ando|o|aba|a)\b",
            r"\bahogamiento\b|\b(?:lo|la|le) sac(?:aron|amos|ue|o) (?:ahogad[oa] )?del? " + _WATER + r"\b",
            r"\belectrocut\w{0,6}\b|\b(?:descarga|choque) electric[oa]\b",
            r"\b(?:toco|agarro|le dio|le pego|lo agarro|la agarro|lo jalo)\b" + _gap(20) + r"\b(?:alta tension"
            r"|alto voltaje|la corriente|un cable pelado)\b",
        ),
    ),
    "A-NOT-BREATHING-NORMALLY": SpanishWording(
        (
            r"\brespira (?:muy |bien |como )?(?:raro|feo|extrano|mal|lento|lentito|despacio|con ruido|ruidoso)\b",
            r"\bno respira (?:bien|normal|como siempre)\b",
            # Breathing unknown to the caller, in someone who does not respond: treated as an arrest (AHA).
            r"\b(?:no (?:se|sabe|sabemos|se sabe|estoy segur[oa]|estamos segur[oa]s|puedo (?:ver|saber|decir)"
            r"|distingo|alcanzo a ver)|ni idea)(?: (?:de|bien))? si" + _words(3) + r" respir(?:a|ando|ara|e)\b",
            # The person turning colour ("se puso morado", "está todo morado"), not a bruise ("el dedo está morado").
            r"\b(?:se (?:puso|esta poniendo|estaba poniendo|ve|quedo)(?: tod[oa]| bien| muy)?|esta tod[oa])"
            r" (?:morad[oa]|moradit[oa]|azul|gris)\b",
            r"\b(?:ronca|roncando|ronquido|gorgotea|gorgoteando|gorgoteo|estertor)\b",
            r"\bhace (?:ruidos|sonidos) (?:raros|extranos|feos)\b",
            r"\b(?:labios|cara|boca) (?:estan |esta |se (?:le )?puso |se (?:le )?pusieron )?(?:morad[oa]s?"
            r"|azul(?:es)?)\b",
        ),
        context=(
            r"\bno (?:me |nos |le |les )?(?:responde|reacciona|contesta|despierta|abre los ojos|se mueve)\b",
            r"\b(?:inconsciente|desmayad[oa]|sin conocimiento|sin sentido)\b|\bse (?:ha |le )?desplom\w{0,4}",
            r"\b(?:esta|quedo) (?:tirad[oa]|desmayad[oa]|inconsciente)\b",
        ),
    ),
    "A-SEVERE-RESPIRATORY-DISTRESS": SpanishWording(
        (
            # Tos con espuma rosada: edema agudo de pulmón (see the English rule).
            r"\b(?:tose|tosiendo|tosio|tos|toser)\b" + _gap(30) + r"\b(?:espuma (?:rosa|rosada|rosadita)"
            r"|(?:flemas?|esputos?|saliva|babas?) (?:rosad[oa]s?|rosa)(?: y| con)? (?:espuma|espumos[oa]s?))\b",
            r"\b(?:solo|apenas|nada mas) (?:puede )?(?:dice|decir|habla|hablar) (?:una|dos|unas|pocas|una o dos)"
            r" palabras?\b",
            r"\bno (?:puede|alcanza a) (?:terminar|acabar|completar) (?:una|la|las) (?:frase|oracion|palabras)\b",
            r"\bse le (?:hunden|meten|marcan|jalan) (?:las costillas|el pecho|la panza|el estomago)\b",
            r"\b(?:quejandose|pujando|gimiendo) (?:al|para) respirar\b|\btiraje\b|\b(?:aleteo nasal"
            r"|le aletea la nariz)\b",
        ),
    ),
    "A-SHOCK": SpanishWording(
        (
            r"\b(?:frio|fria) y (?:sudoros[oa]|pegajos[oa]|humed[oa])\b|\b(?:palid[oa]|gris|cenizo|cenicienta) y"
            r" (?:sudoros[oa]|fri[oa]|pegajos[oa])\b",
            r"\bpiel (?:gris|moteada|marmolea)",
            r"\b(?:sangre|sangrando|sangrado)\b[^.]{0,60}\b(?:se desmaya|se marea|se va|se cae)\b[^.]{0,25}\b(?:parar"
            r"|pararse|levantar|levantarse|se para|se levanta)\b",
        ),
    ),
}

_STROKE_WORDS = (
    r"(?:derrame(?: cerebral)?(?! (?:en (?:el|la|los|las|su|mi) \w+|pleural|ocular|de \w+|sinovial|articular))"
    r"|embolia(?! pulmonar)(?: cerebral)?|ataque cerebral|infarto cerebral|accidente cerebrovascular|acv|avc|evc"
    r"|ictus|trombosis cerebral|mini ?derrame)"
)
_FALL = r"(?:se (?:cayo|callo|cae|vino abajo|tiro|avento|lanzo|desplomo|resbalo)|cayo|callo|caida|salto|brinco)"
_HEIGHT_GAP = (
    r"(?:\s+(?:de|desde|unos|unas|como|mas de|casi|aproximadamente|aprox\.?|alrededor de|una|altura|al menos"
    r"|por lo menos|sobre|a|mas o menos)){0,6}\s*"
)
_DRUGS = (
    r"(?:pastillas?|pastas|tabletas?|pildoras?|capsulas?|medicinas?|medicamentos?|chochos|tylenol|paracetamol"
    r"|acetaminofen|aspirinas?|ibuprofeno|advil|motrin|aleve|naproxeno|benadryl|xanax|alprazolam|valium|diazepam"
    r"|clonazepam|rivotril|klonopin|ativan|lorazepam|ambien|zolpidem|oxicodona|oxycodone|percocet|vicodin|norco"
    r"|tramadol|litio|seroquel|quetiapina|trazodona|amitriptilina|insulina|metformina|somniferos?"
    r"|antidepresivos?|calmantes?)"
)
_SUBSTANCES = (
    r"(?:pilas? (?:de boton|de reloj|redondas?|chiquitas?|planas?)|baterias? (?:de boton|de reloj)|pilitas?|pilas?"
    r"|baterias?|imanes|iman|anticongelante|metanol|alcohol de (?:madera|quemar)|liquido (?:de|para) (?:parabrisas"
    r"|limpiaparabrisas|frenos)|aceite de lampara|queroseno|kerosen[oe]|gasolina|diesel|thinner|tiner|aguarras"
    r"|solvente|destapacanos|destapa ?canos|limpiahornos|sosa caustica|soda caustica|lejia|caustic[oa]"
    r"|capsulas? de (?:detergente|jabon)|detergente en capsulas|cloro|blanqueador|clorox|veneno (?:para|de)"
    r" (?:ratas|ratones|cucarachas|hormigas)|raticida|matarratas|pesticida|insecticida|plaguicida|herbicida"
    r"|mata ?hierbas?|matamalezas|(?:pastillas?|tabletas?|suplementos?|vitaminas?) de hierro|sulfato ferroso"
    r"|vitaminas prenatales|parches? de (?:fentanilo|nicotina)|liquido (?:de|del|para) (?:vape|vapeador"
    r"|cigarro electronico)|nicotina liquida)"
)
_INGEST = (
    r"(?:se (?:trago|comio|tomo|bebio|metio a la boca)|trago|tragado|tragando|se esta tragando|comio|comido"
    r"|tomo|tomado|bebio|bebido|chupo|mastico|mordio|ingirio|ingerido|ingesta de)"
)
# A few words between a verb and its object, never across a conjunction ("comio y luego limpiamos con cloro").
_WORD_GAP = (
    r"(?:\s+(?!y\b|e\b|pero\b|luego\b|despues\b|antes\b|mientras\b|o\b|" + _NEGATION_WORD + r")[\w'/-]+){0,4}?\s+"
)
_EYE_CHEMICAL = (
    r"(?:quimic[oa]s?|productos? quimicos?|cloro|blanqueador|clorox|lejia|acidos?|alcali|sosa caustica|sosa"
    r"|soda caustica|cal|cemento|concreto|amoniaco|destapacanos|destapa ?canos|limpiahornos|liquido de (?:la )?"
    r"bateria|acido de (?:la )?bateria|desengrasante|caustic[oa])"
)
_PREGNANT = (
    r"(?:(?<!prueba de )(?<!test de )(?<!examen de )\bembarazad[ao]\b|(?<!prueba de )(?<!test de )(?<!examen de )"
    r"\bembarazo\b|\bencinta\b|\bprenada\b|\besta en estado\b(?! de)|\bespera(?:ndo)? (?:un )?bebe\b"
    r"|\b(?:prueba|test|examen) de embarazo (?:salio |dio |es |fue )?positiv[oa]\b"
    r"|\b\d{1,2} (?:semanas|meses) de (?:embarazo|gestacion)\b|\b(?:se le |se me )?(?:rompio|reviento|rompe|revienta)"
    r" (?:la )?(?:fuente|bolsa|bolsa de(?:l| las) aguas?)\b|\brompio aguas\b)"
)
_PREGNANCY_SIGN = (
    r"(?P<also>\bsangr(?:ado|ando|a|o)\b|\bhemorragia\b|\bcoagulos\b|\bmanch(?:ado|ando)\b"
    r"|\b(?:dolor|dolores|colicos?|retorcijones|calambres|punzadas?)\b" + _words(3) + r" (?:de|en) (?:el |la |su |mi )?"
    r"(?:vientre|barriga|panza|pancita|estomago|abdomen|pelvis|bajo vientre|parte de abajo|vientre bajo)\b"
    r"|\bdolor abdominal\b|\b(?:me|le) duele (?:mucho |bastante )?(?:el vientre|la barriga|la panza|el estomago"
    r"|el abdomen|abajo)\b)"
)
_LATE_PREGNANCY = (
    r"(?:\b(?:embarazada de|tiene|esta de|con) (?:2[1-9]|3\d|4[0-2]) semanas\b|\b(?:2[1-9]|3\d|4[0-2]) semanas de"
    r" (?:embarazo|gestacion)\b|\b(?:[6-9]|seis|siete|ocho|nueve) meses (?:de embarazo|embarazada)\b"
    r"|\bembarazada de (?:[6-9]|seis|siete|ocho|nueve) meses\b|\b(?:tercer|3er) trimestre\b)"
)
_PREECLAMPSIA_SIGN = (
    r"(?P<also>dolor de cabeza|(?:le|me) duele (?:mucho )?la cabeza|vision borrosa|ve borroso|veo borroso"
    r"|(?:ve|veo|viendo|vio|vi) (?:lucecitas|estrellitas|manchas|puntos|luces)|cambios en la vision"
    r"|hinchazon de (?:la )?cara|cara hinchada|se le hincho la cara|dolor (?:en la )?boca del estomago|convulsi\w{0,6})"
)
_JUMP_FROM = r"(?:de|del|desde|por|frente|delante|a las vias|al tren|al metro|al rio)"
_SWEAT = r"\b(?:suda|sudando|sudaba|sudado|sudada|sudor|sudoroso|sudorosa|sudoracion|empapad[oa] en sudor)\b"
_VEHICLE = (
    r"(?:carro|coche|auto|automovil|camion|camioneta|troca|trailer|tren|moto|motocicleta|autobus|bus|micro|combi"
    r"|taxi|vehiculo|tractor|pipa|colectivo|pesera|van)"
)

_B_RULES: dict[str, SpanishWording] = {
    "B-SEIZURE": SpanishWording(
        (
            r"(?<!para las )(?<!para la )(?<!contra las )(?<!historia de )(?<!antecedentes de )(?<!historial de )"
            r"\bconvuls\w{0,8}\b(?! desde (?:nin[oa]|chic[oa]|pequen[oa]|hace anos|siempre))" + _HISTORY_AHEAD,
            r"\b(?:ataque|crisis)(?: \w+)? (?:epileptic[oa]|de epilepsia|convulsiv[oa])\b",
            r"\ble (?:dio|da|esta dando|vino) (?:la |un )?epilepsia\b",
            # "ataque" alone may be a heart attack or panic; with shaking or rolled-back eyes it is a seizure.
            r"\b(?:le dio|le esta dando|tuvo|le vino) un ataque\b(?! (?:de (?:panico|nervios|ansiedad|tos|risa|asma"
            r"|celos|histeria|rabia|ira|llanto)|al corazon|cardiaco))" + _gap(30) + r"\b(?:tembl\w{0,5}|sacud\w{0,6}"
            r"|espuma|ojos (?:en blanco|volteados|para atras)|se puso (?:ties[oa]|rigid[oa]))",
            r"\b(?:echando|echa|echo|saca|sacando|saco|le sale|le salia) espuma (?:por|de) la boca\b",
        ),
    ),
    "B-STRANGULATION": SpanishWording(
        (
            r"\bestrangul\w{0,6}\b",
            r"\b(?:lo|la|me|le|nos) (?:ahorco|ahorcaba|ahorcaron|estaba ahorcando|quiso ahorcar|trato de ahorcar"
            r"|intento ahorcar|agarro del cuello|apreto el cuello|apretaba el cuello|asfixio|asfixiaba"
            r"|quiso asfixiar)\b",
            r"\bahorcad[oa] por\b",
            r"\b(?:le|me|la|lo) (?:puso|apreto|agarro|apretaba|agarraba)" + _words(3) + r" (?:el|del|en el"
            r"|al) cuello\b",
            r"\b(?:manos|soga|cuerda|cable|cinturon|mecate"
            r"|lazo) " + _words(2, space_first=False) + r"(?:alrededor del|en el|del) cuello\b",
            r"\b(?:intento|trato|quiso|quiere|intentaba|queria) (?:de )?(?:ahorcarse|colgarse)\b"
            r"|\bintento de (?:ahorcamiento|ahorcarse)\b|\bmarcas? (?:de (?:la )?(?:soga|cuerda) )?en el cuello\b",
        ),
    ),
    "B-STROKE-SIGNS": SpanishWording(
        (
            r"(?<!historia de )(?<!antecedentes de )(?<!antecedente de )(?<!historial de )(?<!previo )(?<!viejo )"
            r"(?<!anterior )\b" + _STROKE_WORDS + r"\b" + _HISTORY_AHEAD,
            r"\bcodigo (?:ictus|infarto cerebral|acv|cerebro|evc)\b|\bultima vez (?:que (?:lo|la) (?:vi|vimos"
            r"|vieron) |que estaba |vist[oa] )?(?:bien|normal)\b",
            r"\b(?:cara|boca|labio|rostro|carita|media cara) (?:\w+ )?(?:chuec[oa]|torcid[oa]|caid[oa]|de lado"
            r"|ladead[oa]|desviad[oa]|jalad[oa]|paralizad[oa])\b",
            r"\bse le (?:cayo|torcio|chueco|desvio|ladeo|fue de lado|jalo|paralizo) (?:la cara|la boca|el labio"
            r"|un lado de la cara|media cara)\b|\bparalisis facial\b",
            r"\bhabla (?:muy )?(?:arrastrad[oa]|enredad[oa]|trabad[oa]|como borrach[oa])\b|\b(?:habla )?arrastr"
            r"(?:a|ando) las palabras\b|\bse le traba la lengua\b|\bno le salen las palabras\b|\blengua trabada\b",
            r"\b(?:brazo|pierna|mano|lado|cara) (?:izquierd[oa]|derech[oa])\b" + _gap(15) + r"\b(?:debil|sin fuerza"
            r"|dormid[oa]"
            r"|entumid[oa]|adormecid[oa]|paralizad[oa]|muert[oa]|caid[oa]|no (?:lo |la )?(?:puede mover|mueve"
            r"|siente|responde))",
            r"\b(?:debilidad|adormecimiento|entumecimiento|paralisis|no (?:puede|pudo) (?:mover|levantar|sentir)"
            r"|no siente|se le durmio|se le (?:paralizo|entumio|adormecio)|no tiene fuerza en)\b"
            + _gap(20)
            + r"\b(?:izquierd[oa]|derech[oa]|de un lado|medio cuerpo|la mitad del cuerpo)\b",
            r"\b(?:de repente|derrepente|de pronto|repentin\w{0,6}|subit\w{0,6})\b" + _gap(15) + r"\b(?:debilidad"
            r"|adormecimiento|entumecimiento|confusion|confundid[oa]|no (?:puede|pudo) (?:hablar|caminar|ver|mover"
            r"|levantar)|se le durmio (?:el|la|medio))",
            r"\bhemipare|\bhemipleji|\bafasi|\bparapare|\bparapleji|\bcuadripleji|\btetrapleji|\bdisartri",
            r"\bdesviacion de (?:la )?comisura (?:labial|bucal)\b",
            r"\bpeor dolor de cabeza\b|\bdolor de cabeza\b[^.]{0,40}\bel peor de (?:mi|su) vida\b|\bdolor de cabeza"
            r" (?:muy )?(?:fuerte|intenso|terrible)\b[^.]{0,30}\bde (?:golpe|repente)\b",
        ),
    ),
    "B-VISION-LOSS": SpanishWording(
        (
            r"\b(?:perdio|perdiendo|perdi|pierde|perdida (?:subita |repentina )?de) (?:la |su |mi )?(?:vista|vision)\b"
            r"(?! (?:poco a poco|gradualmente|con los anos))",
            r"\bno (?:puede |puedo |pudo |podia )?(?:ve|veo|ver|vio|veia)(?: nada)? (?:de|del|por|con) (?:(?:el|un|su"
            r"|mi|los|ambos|uno de los) )?ojos?\b",
            r"\b(?:se (?:quedo|ha quedado)|quedo|de repente (?:esta|quedo)) cieg[oa]\b|\bceguera (?:repentina"
            r"|subita)\b",
            r"\b(?:de repente|derrepente|de pronto|repentinamente|subitamente)\b" + _gap(15) + r"\b(?:no (?:ve|veo"
            r"|puede ver|pudo ver|vio)|perdio (?:la )?(?:vista|vision)|ve (?:todo )?negro|vio todo negro)",
            r"\bse (?:le|me) (?:fue|apago) la vista\b|\bcomo una cortina (?:negra |oscura )?(?:sobre|en) (?:el|su|mi)"
            r" ojo\b|\bamaurosis\b",
        ),
    ),
    "B-CHEMICAL-EYE": SpanishWording(
        (
            r"\b" + _EYE_CHEMICAL + r"\b" + _gap(30, lazy=True) + r"\b(?:en|a|dentro de) (?:el |los |la |su |sus |mi "
            r"|mis |un |ambos |uno de los )?ojos?\b",
            r"\bojos?\b" + _gap(20, lazy=True) + r"\b(?:con|de) (?:un |una |el |la )?" + _EYE_CHEMICAL + r"\b",
            r"\bquemadura quimica (?:en|de|a) (?:el |los |la |su |sus |mi |mis )?ojos?\b"
            r"|\b(?:quemadura|lesion) ocular (?:quimica|por (?:acido|alcali|quimicos?))\b",
        ),
    ),
    "B-CHEST-PAIN-RISK": SpanishWording(
        (
            r"\b(?:dolor|dolores|opresion|presion|apreton|peso|pesadez|molestia|punzadas?)\b" + _words(2) + r" (?:de"
            r"|del|en el|en su|en mi) pecho\b",
            r"\b(?:le|me|te) (?:duele|dolia|empezo a doler|aprieta|oprime)" + _words(2) + r" pecho\b",
            r"\bdolor (?:\w+ )?(?:toracico|precordial|retroesternal)\b",
            r"\bataque (?:al corazon|cardiaco)\b|\binfarto\b(?! cerebral)|\besta infartando\w{0,2}\b",
            r"\b(?:elefante|peso|piedra|algo pesado) (?:encima|sobre) (?:del |el |de su |de mi |su |mi )?pecho\b"
            r"|\bcomo si (?:le|me) (?:aplastaran|apretaran) el pecho\b",
        ),
        context=(
            _SWEAT,
            r"\bsudor frio\b|\bdiaforetic[oa]\b|\bdiaforesis\b|\bpegajos[oa]\b|\bpiel fria\b",
            r"\b(?:se le |se me )?(?:va|corre|baja|pasa|irradia|recorre|extiende)\w{0,3} (?:hacia |hasta |para |al "
            r"|a la |por )?(?:el |la |los |su |mi )?(?:brazo|quijada|mandibula|espalda|hombro|cuello)\b",
            r"\bbrazo izquierdo\b|\bquijada\b|\bmandibula\b",
            r"\bfalta (?:de )?(?:el )?aire\b|\bdificultad para respirar\b|\bcuesta respirar\b|\bno puede respirar\b"
            r"|\bse ahoga\b|\bsofocad[oa]\b",
            r"\bnause\w{0,3}|\bvomit\w{0,5}|\bganas de vomitar\b|\basco\b|\bdevolvi\w{0,3}\b",
            r"\b(?:historia|historial|antecedentes?) (?:de |del )?(?:problemas del )?(?:corazon|cardiac|infarto)"
            r"|\b(?:ya )?(?:tuvo|ha tenido|le dio) (?:un |otro )?infarto\b|\b(?:tiene|le pusieron|con) (?:un |una )?"
            r"(?:stent|bypass|marcapasos|cateterismo)\b|\bcardiopat\w{0,3}\b|\b(?:enfermo|problemas?|enfermedad)"
            r" del corazon\b",
            r"\b(?:[3-9]\d|1[01]\d) ?anos\b",
            r"\bdiabet\w{0,4}\b",
            r"\bpalid[oa]\b|\bpalidez\b",
            r"\bmare(?:o|os|ad[oa]|ando|a)\b",
            r"\bdesmay\w{0,4}|\bse (?:privo|desvanecio)\b",
            r"\baplast\w{0,5}|\bopresi(?:on|vo)\b|\bpresion\b",
            r"\bambulancia\b|\bparamedicos?\b",
            r"\bcocaina\b|\bcrack\b|\bmetanfetamina\b|\banfetaminas?\b|\bestimulantes?\b|\bperico\b",
        ),
    ),
    "B-AORTIC-DISSECTION": SpanishWording(
        (
            r"\bdolor " + _words(2, space_first=False) + r"(?:desgarrante|desgarrador|como (?:un )?desgarr(?:o|e)"
            r"|como si (?:le|me) (?:desgarraran|arrancaran|rompieran|partieran|rasgaran))",
            r"\bcomo si (?:algo |alguien )?(?:le|me|lo|la) (?:estuviera |estuvieran )?(?:desgarra\w{0,6}|rasga\w{0,6}"
            r"|partiendo|partiera|rompiendo por dentro|arrancando|arrancara)",
            r"\b(?:sensacion|sentimiento) (?:de )?desgarr\w{0,4}\b|\b(?:dolor|siente|sentia|siento)\b"
            + _gap(20)
            + r"\b(?:desgarr\w{0,5}|rasga\w{0,5})\b(?! muscular)",
            r"\bdiseccion (?:de (?:la )?)?aort\w{0,3}\b|\baneurisma (?:aortico |de (?:la )?aorta |abdominal )?(?:roto"
            r"|se rompio|disecante|reventado|fisurado)\b|\bse le (?:rompio|reviento) (?:el |un )?aneurisma\b"
            r"|\bmasa pulsatil\b",
        ),
    ),
    "B-GI-BLEEDING": SpanishWording(
        (
            r"\b(?:vomit\w{0,5}|devolv\w{0,5}|devuelve|arroj\w{0,5}|tosiendo|tose|tosio|guacare\w{0,5})"
            + _words(2)
            + r" sangre\b|\b(?:vomitos?|tos) (?:con|de) sangre\b|\bhematemesis\b|\bhematoquezia\b"
            r"|\bmelenic[oa]s?\b",
            r"\b(?:echa|echando|echo|saca|sacando) sangre por la boca\b",
            r"\b(?:heces|popo|caca|evacuaciones|excremento|deposiciones|diarrea) (?:muy |bien )?(?:negras?|negros?"
            r"|como (?:alquitran|chapopote|brea)|con sangre|sanguinolentas?)\b",
            r"\b(?:posos|asiento|asientos|borra|cuncho|concho) de cafe\b"
            r"|\bvomit\w{0,5}" + _gap(20) + r"\b(?:como (?:asiento"
            r"|posos|borra|concho) de cafe|negro|negruzco|cafe oscuro)\b",
            r"\b(?:heces|popo|excremento|caca|evacuaciones)\b[^.]{0,10}\bnegr[oa]s?\b",
        ),
    ),
    "B-GI-BLEED-RISK": SpanishWording(
        (
            r"\bsangrado (?:rectal|por el (?:recto|ano|trasero|culo)|por (?:atras|abajo)|de (?:abajo|atras))\b"
            r"|\bsangr\w{0,4} (?:por|del) (?:el )?(?:recto|ano|trasero|culo|pompis)\b|\brectorragia\b",
            r"\bsangre (?:en|con) (?:las |la |el |sus |mi |su )?(?:heces|popo|caca|excremento|evacuaciones?"
            r"|deposiciones?|materia fecal|papel)\b",
            r"\b(?:hemorragia|sangrado) (?:digestiv[oa]|gastrointestinal)\b",
        ),
        context=(
            *_ELDERLY,
            r"\bmare(?:o|os|ad[oa]|ando|a)\b",
            r"\bdesmay\w{0,4}",
            r"\bpalid[oa]\b",
            r"\bdebil\b|\bsin fuerzas\b",
        ),
    ),
    "B-SUICIDAL": SpanishWording(
        (
            r"\bsuicid\w{0,5}\b",
            # Reflexive: "se quiere matar" (he wants to kill himself), "me quiero matar" (I want to); "me quiere
            # matar" or "quiere matarme" is someone threatening the caller (B-VIOLENCE-THREAT).
            r"\bse (?:quiere|queria|va a|iba a|quiso|trato de|intento|esta tratando de|piensa|pensaba|amenaza con"
            r"|amenazo con) (?:matar|suicidar|quitar la vida|ahorcar|colgar|cortar las venas|tirar "
            + _JUMP_FROM
            + r"|aventar "
            + _JUMP_FROM
            + r"|lanzar "
            + _JUMP_FROM
            + r"|envenenar|hacer dano|lastimar|dar un tiro"
            r"|pegar un tiro)\b",
            r"\bme (?:quiero|queria|voy a|iba a|quise|trate de|intente|estoy pensando|pienso) (?:matar|suicidar"
            r"|quitar la vida|ahorcar|colgar|cortar las venas|tirar "
            + _JUMP_FROM
            + r"|aventar "
            + _JUMP_FROM
            + r"|envenenar|hacer dano|dar un tiro|pegar un tiro)\b",
            r"\b(?:quiere|queria|va a|iba a|quiso|trato de|intento|esta tratando de|piensa en|pensando en|amenaza con"
            r"|amenazando con|amenazo con|habla de|hablando de) (?:matarse|morirse|suicidarse|quitarse la vida"
            r"|ahorcarse|colgarse|cortarse las venas|envenenarse|hacerse dano|lastimarse|darse un tiro|pegarse un tiro"
            r"|(?:tirarse|aventarse|lanzarse) " + _JUMP_FROM + r")\b",
            r"\b(?:quiero|voy a|pienso en|estoy pensando en|trate de|intente) (?:matarme|morirme|suicidarme"
            r"|quitarme la vida|ahorcarme|colgarme|cortarme las venas|envenenarme|hacerme dano"
            r"|(?:tirarme|aventarme|lanzarme) " + _JUMP_FROM + r")\b",
            r"\b(?:quiere|quieren|quiero) morir(?:se|me)?\b(?! de (?:la )?(?:verguenza|risa|pena|hambre|sueno|calor"
            r"|frio|aburrimiento|miedo|dolor|ganas))",
            r"\bno (?:quiere|quiero|queria) (?:vivir|seguir viviendo|estar vivo)\b"
            r"|\b(?:estaria|estariamos|estarian) mejor muert[oa]s?\b",
            r"\bautolesi\w{0,4}|\bse (?:auto)?lesion\w{0,3}\b|\bse (?:corto|esta cortando|cortaba) (?:las venas"
            r"|las munecas|la muneca|el cuello|los brazos)\b|\bse hizo dano (?:a proposito|a si mism[oa])\b",
            r"\bsobredosis a proposito\b|\b(?:ideacion|ideas|pensamientos) (?:de muerte|de matarse"
            r"|de quitarse la vida)\b",
            r"\b(?:voces|una voz) (?:que )?(?:le |me )?(?:dicen|dice|decian|ordenan|manda|mandan) (?:que )?(?:se mate"
            r"|se suicide|se haga dano|se tire|se corte|se muera|me mate|matarse)\b|\balucinaciones (?:de comando"
            r"|imperativas)\b",
        ),
    ),
    "B-VIOLENCE-THREAT": SpanishWording(
        (
            r"\b(?:tiene|trae|traia|anda con|agarro|saco|esta con|armado con|apuntando con|amenazando con|amenaza con"
            r"|amenazo con) (?:un |una |el |la |su )?(?:pistola|arma|cuchillo|navaja|machete|fusca|cuete|escopeta"
            r"|rifle|revolver|punal|filero)\b",
            r"\b(?:hombre|mujer|sujeto|tipo|persona|alguien|senor|muchacho|chavo|individuo)s? armad[oa]s?\b"
            r"|\b(?:esta|estan|anda|andan) armad[oa]s?\b",
            r"\bamenaz\w{0,5} (?:con |de )?(?:matar(?:nos|la|lo|los|las|me|te)?|lastimar(?:nos|la|lo|me)?"
            r"|disparar(?:nos|le|les|me)?|apunalar(?:nos|la|lo|me)?|acuchillar(?:nos|la|lo|me)?|balear(?:nos|la|lo"
            r"|me)?)\b(?!se)",
            r"\bhomicid\w{0,4}\b",
            r"\b(?:quiere|queria|va a|iba a|amenaza con|amenazo con|quiso|trato de|intento) (?:matar|lastimar|herir"
            r"|balear|apunalar|acuchillar|disparar)(?:me|nos|la|lo|los|las|le|les|te)\b",
            r"\b(?:quiere|queria|va a|iba a|planea|piensa|dice que va a|quiso|intento|trato de) (?:matar|lastimar"
            r"|herir|balear|apunalar|acuchillar|dispararle) (?:a )?(?:alguien|la gente|los demas|las personas"
            r"|todos|todo el mundo|su |mi |sus |mis |nosotros|el vecino|la vecina|los vecinos)",
            r"\b(?:nos|me|la|lo|los|las|les|te) (?:quiere|queria|va a|iba a|amenaza con|amenazo con|quiso|trato de"
            r"|intento) (?:matar|lastimar|herir|balear|apunalar|acuchillar|picar|disparar)\b",
            r"\bvoces (?:que )?(?:le |me )?(?:dicen|dice|ordenan|mandan) (?:que )?(?:(?:mate|lastime|ataque|hiera"
            r"|dispare|apunale) a\b|(?:los|las|lo|la|nos|me) (?:mate|lastime|ataque))",
        ),
    ),
    "B-ASSAULT-ABUSE": SpanishWording(
        (
            r"\bviolad[oa]\b|\bviolacion\b(?! de (?:la|una) (?:orden|ley|norma|libertad))"
            r"|\b(?:la|lo|me|le) (?:violo|violaron|violaba)\b",
            r"\b(?:abuso|agresion|ataque|violencia) sexual\b|\babus\w{0,5} sexualmente\b|\babus\w{0,5} de (?:ella"
            r"|el|la nina|el nino|la menor|el menor|una nina|un nino|(?:mi|su) (?:hij[oa]|niet[oa]|sobrin[oa]"
            r"|herman[oa]|mama|madre|papa|padre|abuel[oa]|esposa))\b",
            r"\bmanose\w{0,4}|\btocamientos\b|\b(?:la|lo|me|le) (?:toco|tocaron) (?:sus |mis )?(?:partes|partes intimas"
            r"|indebidamente|inapropiadamente)\b|\bdroga de la violacion\b|\b(?:la|lo|me) drogaron\b",
            r"\bmaltrato (?:infantil|a (?:menores|ninos|ancianos|adultos mayores)|de (?:menores|ninos|ancianos))\b"
            r"|\bmaltrat\w{0,4} (?:a )?" + _PERSON_TARGET + r"\b",
            r"\babandono (?:de|del) (?:un )?(?:menor|nino|anciano|persona mayor)\b|\bnegligencia (?:infantil|con (?:el"
            r"|la|los) (?:nino|nina|bebe|anciano))\b",
            r"\bsindrome del? (?:nino|bebe) sacudido\b|\b(?:zarande\w{0,4}|sacudio) (?:muy fuerte )?(?:al|a la)"
            r" (?:bebe|nino|nina)\b",
            r"\b(?:golpe\w{0,4}|le pega|les pega|le pego|les pego|abus\w{0,4}) (?:a )?" + _PERSON_TARGET + r"\b",
        ),
    ),
    "B-DOMESTIC-VIOLENCE": SpanishWording(
        (
            r"\b(?:me|la|lo|le|nos) (?:golpe\w{0,4}|peg(?:o|aba)|pate\w{0,4}|ahorco|estrangulo|agredio|ataco|cacheteo"
            r"|abofeteo|empujo|madreo)\b" + _gap(10, lazy=True) + r"\b(?:su|mi|el|la) (?:novio|novia|esposo|esposa"
            r"|marido|pareja|ex\w{0,7}|concubin[oa]|padrastro|madrastra|cuidador[a]?)\b",
            r"\bviolencia (?:domestica|intrafamiliar|familiar|de genero|de pareja)\b|\b(?:disputa|pleito|pelea"
            r"|disturbio) (?:domestic[oa]|familiar|conyugal|de pareja)\b",
            r"\b(?:novio|novia|esposo|esposa|marido|pareja|ex|exesposo|exesposa|exnovio|exnovia|exmarido|expareja"
            r"|concubin[oa]|padrastro|madrastra|cuidador|cuidadora|papa|mama|padre|madre|hij[oa]|niet[oa]|yerno"
            r"|nuera|suegr[oa]|cunad[oa])\b" + _gap(20, lazy=True) + r"\b(?P<also>(?:me|la|lo|le|nos|los"
            r"|las) (?:golpe\w{0,4}"
            r"|peg(?:o|aba|a|aron)|pate\w{0,4}|ahorco|estrangulo|agredio|ataco|cacheteo|abofeteo|empujo|tiro al suelo"
            r"|avento|dio una (?:golpiza|paliza|cachetada|bofetada)|madreo|quemo|corto|arrastro))\b",
            r"\b(?:golpead[oa]|agredid[oa]|atacad[oa]|pateado|pateada|estrangulad[oa]|madread[oa]) por (?:su|mi|el"
            r"|la) (?:novio|novia|esposo|esposa|marido|pareja|ex\w{0,7}|concubin[oa]|padrastro|cuidador[a]?|hij[oa]"
            r"|padre|madre)\b",
        ),
        context=(
            r"\blesion\w{0,3}|\bherid\w{0,3}|\bmoret\w{0,3}|\bmorad[oa]\b|\bsangr\w{0,5}|\bcortad\w{0,2}"
            r"|\bhinchad\w{0,2}|\binflamad\w{0,2}|\bdolor\b|\bduele\b|\bfractur\w{0,4}|\bquebr\w{0,4}|\broto\b"
            r"|\brota\b",
            r"\bestrangul\w{0,4}|\bahorc\w{0,4}|\bgolpe\w{0,4}|\bgolpiza\b|\bpaliza\b|\bpatad\w{0,2}|\bpate\w{0,4}"
            r"|\bpunetaz\w{0,2}|\bcachetad\w{0,2}|\bbofetad\w{0,2}|\bempuj\w{0,4}|\bpeg(?:o|aron|a|an|aba)\b"
            r"|\bquem\w{0,4}|\bcuchill\w{0,4}|\blastim\w{0,4}",
            r"\bcabeza\b|\bcara\b|\bembarazad[oa]\b|\binconsciente\b|\bdesmay\w{0,4}|\bperdio el conocimiento\b",
        ),
    ),
    "B-PENETRATING-TRAUMA": SpanishWording(
        (
            r"\bapunal\w{0,6}\b|\bacuchill\w{0,6}\b|\b(?:balazos?|punaladas?|navajazos?|cuchillazos?|plomazos?"
            r"|machetazos?|disparos?)\b|\bbalead[oa]s?\b|\bherida (?:de|por) (?:bala|arma de fuego|arma blanca"
            r"|cuchillo|navaja|escopeta)\b|\barma blanca\b|\bempalad[oa]\b",
            r"\b(?:le|lo|la|me|les|nos|te) (?:disparo|dispararon|balearon|balacearon|tirotearon|(?:dieron|pegaron"
            r"|metieron) un (?:balazo|tiro|plomazo))\b|\bse (?:le )?disparo\b",
            r"\b(?:lo|la|me|le) picaron\b(?! (?:los |las |unos |unas )?(?:mosquitos|abejas|avispas|hormigas|zancudos"
            r"|moscos|chinches|pulgas|aranas))",
            r"\b(?:cuchillo|navaja|bala|flecha|varilla|palo|fierro|tubo|clavo|vidrio)\b" + _gap(20) + r"\b(?:clavad[oa]"
            r"|encajad[oa]|enterrad[oa]|incrustad[oa]|atravesad[oa]|metid[oa]) (?:en|por) (?:el|la|su|mi) (?:pecho"
            r"|abdomen|barriga|panza|estomago|cuello|espalda|cabeza|ojo|ingle|costado)\b",
            r"\bse (?:le )?(?:clavo|enterro|encajo|incrusto) (?:un|una|el|la) (?:\w+ )?(?:en|por) (?:el|la|su|mi)"
            r" (?:pecho|abdomen|barriga|panza|estomago|cuello|espalda|cabeza|ojo|ingle|costado)\b",
        ),
    ),
    "B-HIGH-RISK-MECHANISM": SpanishWording(
        (
            r"\batropell\w{0,6}\b|\barrollad[oa]\b",
            r"\b" + _VEHICLE + r"\b" + _gap(15) + r"\b(?:le|lo|la|les|los|me) (?:pego|golpeo|avento|levanto|tumbo"
            r"|arrollo|paso por encima|embistio)\b",
            r"\b(?:lo|la|le|me|los) (?:pego|golpeo|avento|levanto|tumbo|embistio|arrollo) (?:un|una|el|la) "
            + _VEHICLE
            + r"\b",
            r"\b(?:expulsad[oa]|eyectad[oa])s?\b|\bsali(?:o|eron) (?:volando|disparad[oa]s?)\b"
            + _gap(15)
            + r"\b(?:"
            + _VEHICLE
            + r"|parabrisas|ventana|caballo|cuatrimoto)\b",
            r"\bse (?:volteo|volco|volcaron|voltearon) (?:el|la|su|un|una) " + _VEHICLE + r"\b",
            r"\bvolcadura\b|\b(?:" + _VEHICLE + r"|cuatrimoto)\b" + _gap(20) + r"\b(?:se volteo|se volc\w{0,3}"
            r"|volc\w{0,3}"
            r"|dio (?:\w+ )?vueltas|quedo (?:de cabeza|volteado|volteada|al reves|con las llantas (?:para|hacia)"
            r" arriba))",
            r"\b(?:murio|murieron|muert[oa]s?|fallecid[oa]s?|fallecio|sin vida)\b" + _gap(30) + r"\b(?:mismo|misma)"
            r" (?:carro|coche|auto|vehiculo|camioneta)\b|\b(?:mismo|misma) (?:carro|coche|auto|vehiculo|camioneta)"
            r"\b" + _gap(30) + r"\b(?:murio|murieron|muert[oa]s?|fallecid[oa]s?|fallecio|sin vida)\b",
            r"\b(?:conductor|chofer|pasajer[oa]|acompanante|ocupante)s?\b" + _gap(15) + r"\b(?:murio|murieron|fallecio"
            r"|fallecieron|esta muert[oa]|estan muert[oa]s|quedo muert[oa]|sin vida)\b",
            r"\b(?:moto|motocicleta|motoneta|cuatrimoto|moto de cross)\b" + _gap(15) + r"\b(?:accidente|choque|choco"
            r"|se cayo|derrap\w{0,4}|estrell\w{0,4}|impacto)\b|\bmotociclista\b|\b(?:accidente|choque|caida|se cayo"
            r"|derrape)\b" + _gap(10) + r"\b(?:de|en|de la|en la|en su) (?:moto|motocicleta|motoneta|cuatrimoto)\b",
            r"\b(?:alta velocidad|a toda velocidad)\b" + _gap(20) + r"\b(?:choque|choco|accidente|volc\w{0,3}"
            r"|estrell\w{0,4}"
            r"|impacto)|\b(?:choque|choco|accidente|se estrello|impacto)\b" + _gap(25) + r"\b(?:alta velocidad"
            r"|a toda velocidad|en la autopista|en la carretera|en el freeway)\b|\b(?:[89]\d|1\d\d) ?(?:km/?h"
            r"|kilometros por hora)\b|\b(?:[5-9]\d|1\d\d) ?(?:mph|millas por hora)\b",
            r"\b(?:atrapad[oa]|prensad[oa]|aplastad[oa]|machucad[oa])s? (?:en|dentro del?|bajo|debajo del?"
            r"|adentro del?|entre) (?:el |la |los |las |su |un |una )?(?:" + _VEHICLE + r"|fierros|escombros|maquina"
            r"|maquinaria|lamina|asientos?|volante)\b|\bexcarcel\w{0,6}\b|\btuvieron que cortar (?:el|la) (?:carro"
            r"|coche|puerta|techo)\b",
        ),
    ),
    "B-FALL-FROM-HEIGHT": SpanishWording(
        (
            # "escalera" is a ladder after "de"; down the stairs ("por las escaleras") is B-ELDERLY-FALL.
            r"\b"
            + _FALL
            + r" (?:de|del|desde|por) (?:el |la |un |una |lo alto de(?:l| la)? |arriba de(?:l| la)? |su )?"
            r"(?:techo|azotea|tejado|(?<!por la )(?<!por una )escalera(?! de (?:la casa|caracol)| abajo)|andamio"
            r"|balcon|edificio|puente|barranco"
            r"|precipicio|acantilado|barranca|segundo piso|tercer piso|cuarto piso|quinto piso|\d+(?:o|er)? piso"
            r"|ventana|loza|losa|techado)\b",
            r"\b" + _FALL + r" (?:de|desde) (?:un |una |el |la )?(?:[2-9]|dos|tres|cuatro|cinco|seis) (?:pisos"
            r"|plantas)\b",
            r"\b" + _FALL + _HEIGHT_GAP + r"(?:(?:2\d|[3-9]\d|\d{3}) ?(?:pies|ft)\b|(?:[6-9]|[1-9]\d)(?:[.,]\d)? ?(?:m"
            r"|metros|mts)\b)",
            r"\bcaida de (?:gran |mucha |bastante )?altura\b|\bcayo de (?:muy )?(?:alto|gran altura|mucha altura)\b"
            r"|\bse cayo de lo alto\b",
        ),
    ),
    "B-PEDIATRIC-FALL": SpanishWording(
        (
            r"\b" + _FALL + _HEIGHT_GAP + r"(?:1\d ?(?:pies|ft)\b|[3-5](?:[.,]\d)? ?(?:m|metros|mts)\b)",
            r"\b" + _FALL + r" (?:de|del|desde) (?:un |una |el |la )?arbol\b",
            r"\b(?:[2-5]|dos|tres|cuatro|cinco|(?:el |del )?doble|(?:el "
            r"|del )?triple) (?:veces )?(?:de )?su (?:propia )?(?:altura|estatura)\b",
        ),
        context=_CHILD,
    ),
    "B-ELDERLY-FALL": SpanishWording(
        (
            r"\b(?:se cayo|se callo|cayo|callo|se resbalo|rodo|se fue rodando|se vino rodando) (?:por|de|desde lo alto"
            r" de) (?:las |unas |todas las |\d{2} |(?:diez|doce|quince|veinte) )?(?:escaleras|escalones|gradas)\b"
            r"|\b(?:se cayo|se callo|cayo|callo|se resbalo|rodo|se fue rodando) por (?:la|una|toda la) escalera\b",
            r"\b(?:rodo|cayo|se cayo|se fue|se vino) escaleras abajo\b",
        ),
        context=_ELDERLY,
    ),
    "B-DIVING-INJURY": SpanishWording(
        (
            r"\b(?:clavado|se clavo|salto|se tiro|se avento|se lanzo|brinco)\b" + _gap(30) + r"\b(?:poco profund\w{0,3}"
            r"|bajit[oa]|lado bajo|parte baja|" + _WATER + r")\b",
            r"\baccidente (?:de|al) (?:clavado|zambullirse|tirarse al agua)\b|\bse zambull\w{0,4}\b"
            r"|\bse (?:echo|tiro|avento|lanzo|dio) (?:un )?clavado\b",
        ),
        context=(
            r"\bcuello\b|\bnuca\b|\bcervical\b|\bcolumna\b|\bhormigue\w{0,4}|\bentumi\w{0,4}|\badormec\w{0,5}"
            r"|\bdebil\w{0,4}|\bno (?:puede|pudo) (?:mover|sentir)|\bno siente\b|\bparaliz\w{0,4}",
            r"\bse (?:pego|golpeo) (?:en )?(?:la|su) cabeza\b|\bde cabeza\b|\b(?:pego|se pego|se golpeo|choco)"
            r" (?:con|contra) el fondo\b|\bdolor de espalda\b",
        ),
    ),
    "B-ALTERED-MENTAL-STATUS": SpanishWording(
        (
            r"\bconfundid[oa]\b|\bconfusion\b|\bdesorientad[oa]\b|\bdesorientacion\b",
            r"\bletargic[oa]\b|\baletargad[oa]\b|\bsomnolient[oa]\b|\bcuesta (?:mucho )?despertarl[oa]\b"
            r"|\bdificil de despertar\b",
            r"\bno (?:sabe|reconoce) (?:donde esta|quien es|a nadie|en que (?:dia|ano)|que dia|a su familia"
            r"|a sus hijos)\b",
            r"\bdesvari\w{0,4}|\bdelira\w{0,4}|\bdelirio\b|\bincoherente\b|\bhabla incoherencias\b|\bdice (?:puras )?"
            r"(?:incoherencias|cosas sin sentido)\b",
            r"\b(?:esta|anda) (?:actuando|comportandose) (?:muy )?(?:raro|rara|extrano|extrana)\b|\b(?:actua|se"
            r" comporta) (?:muy )?(?:raro|rara|extrano|extrana)\b",
            r"\bse (?:desmayo|privo|desvanecio|quedo privad[oa])\b|\bdesmay\w{0,4}\b|\bperdio (?:el )?(?:conocimiento"
            r"|sentido|la conciencia)\b|\bsincope\b",
            r"\bse (?:desplomo|colapso)\b|\bcolaps\w{0,4}\b|\bperdida (?:del estado )?de (?:la )?(?:conciencia"
            r"|alerta|conocimiento)\b|\bdeterioro (?:del estado )?de (?:la )?conciencia\b",
            r"\b(?:entra y sale|pierde y recupera) (?:de )?(?:la )?conciencia\b|\bresponde (?:solo |nada mas )?a la"
            r" voz\b|\bno esta en sus cinco sentidos\b|\bestado mental alterado\b|\bcambio (?:en su|de) (?:estado"
            r" mental|conducta|comportamiento)\b",
            r"\b(?:no esta en si|esta ido|esta ida|balbucea|balbuceando|pregunta lo mismo"
            r"|mas dormid[oa] de lo normal)\b",
        ),
    ),
    "B-RESPIRATORY-DISTRESS": SpanishWording(
        (
            r"\bno (?:puede|puedo|podia|pudo) respirar\b|\bno (?:puede|puedo) (?:agarrar|tomar|jalar|recuperar)"
            r" (?:el )?aire\b|\bno (?:me|le) (?:entra|llega|alcanza) el aire\b",
            r"\b(?:lucha|luchando|batalla|batallando|peleando) (?:para|por) respirar\b"
            r"|\bse (?:esta )?asfixia(?:ndo)?\b",
            # Gasping while awake, and breathless lying down (orthopnoea); not awake, it is an arrest (A-NOT-*).
            r"\bboquea(?:ndo|ba)?\b",
            r"\b(?:tiene que|necesita|debe|solo puede) (?:estar )?(?:sentad[oa]|sentarse|incorporarse|pararse)"
            r"(?: en la cama| en la orilla de la cama)? (?:para )?(?:poder )?respirar\b",
            r"\bno (?:puede|puedo|aguanta) (?:acostarse|acostarme|estar acostad[oa])\b" + _gap(30) + r"\b(?:respir"
            r"|aire|ahoga)",
            r"\b(?:ataque|crisis) (?:de asma|asmatica)\b" + _gap(10) + r"\b(?:fuerte|grave|severa?|muy mal|terrible"
            r"|horrible)\b|\b(?:fuerte|grave|severa?|terrible|tremend[oa]) (?:ataque|crisis) (?:de asma|asmatica)\b",
            r"\b(?:mucha|severa|grave) (?:dificultad para respirar|falta de aire)\b|\ble falta (?:mucho|muchisimo"
            r"|demasiado) el aire\b|\bdificultad respiratoria (?:severa|grave|importante)\b|\bdistres respiratorio\b"
            r"|\binsuficiencia respiratoria\b",
            r"\b(?:solo|nada mas|nomas|apenas) (?:puede )?(?:dice|decir|habla|hablar|le salen) (?:una o dos|unas pocas"
            r"|pocas|dos o tres|un par de|una|unas)(?: palabras?| palabras sueltas)?\b",
            r"\bno (?:puede|alcanza a) (?:hablar|decir) (?:una )?(?:frases?|oraciones?) (?:completas?|enteras?)\b"
            r"|\bhabla entrecortad[oa]\b",
            r"\b(?:se le )?hunden? (?:las costillas|el pecho|entre las costillas)\b|\btiraje\b|\baleteo nasal\b",
        ),
    ),
    "B-PE-RISK": SpanishWording(
        (
            r"\bfalta de (?:aire|respiracion)\b|\b(?:le|me|te) falta (?:el )?aire\b|\bdificultad (?:para|al)"
            r" respirar\b|\b(?:le|me) cuesta (?:mucho |trabajo )?respirar\b|\bsin aliento\b|\bdisnea\b"
            r"|\bsofocad[oa]\b|\bse (?:ahoga|agita) (?:al|cuando|con|mucho|facil|rapido)\b|\brespira (?:con"
            r" dificultad|muy agitad[oa]|agitad[oa])\b",
            r"\bdolor (?:\w+ )?(?:al|cuando) (?:respirar|respira|inhalar|toma aire)\b|\bduele (?:al|cuando)"
            r" (?:respirar|respira|toma aire)\b",
        ),
        context=(
            r"\bpastillas? anticonceptivas?\b|\banticonceptiv\w{0,3}\b|\bpastillas? (?:para no embarazarse|de"
            r" planificar|para planificar)\b|\bestrogen\w{0,3}\b|\bparche anticonceptivo\b",
            r"\b(?:cirugia|operacion)\b" + _gap(20) + r"\b(?:reciente|hace (?:\d+|un|una|unos|unas|dos|tres|pocos)"
            r" (?:dias?|semanas?)|la semana pasada|ayer|el mes pasado)\b|\b(?:lo|la|me|le) operaron\b"
            + _gap(20)
            + r"\b(?:hace (?:\d+|un|una|unos|unas|dos|tres|pocos) (?:dias?|semanas?)|la semana pasada|ayer)\b"
            r"|\brecien operad[oa]\b|\bpostoperatori[oa]\b|\bpost ?operad[oa]\b|\b(?:vuelo|viaje) (?:largo|de"
            r" (?:muchas|varias|\d+) horas)\b|\blargo (?:vuelo|viaje)\b",
            r"\bposparto\b|\bpostparto\b|\bpuerperio\b|\bdio a luz\b|\b(?:tuvo|acaba de tener) (?:a )?(?:su |un |una"
            r" |el |la )?(?:bebe|nin[oa])\b|\bcesarea\b",
            r"\b(?:pantorrilla|chamorro|pierna) (?:\w+ )?(?:hinchad[oa]|inflamad[oa]|adolorid[oa]|roja|caliente)\b"
            r"|\bdolor (?:en|de) (?:la )?pantorrilla\b|\bse le hincho (?:la|una) pierna\b|\buna pierna (?:mas )?"
            r"hinchad[oa]\b",
            r"\btrombosis\b|\bcoagulos? en (?:la|las|el|los) (?:pierna|piernas|pulmon|pulmones)\b|\bembolia"
            r" pulmonar\b|\btromboembolia\b|\btvp\b",
        ),
    ),
    "B-SEVERE-PAIN": SpanishWording(
        (
            r"\b(?:el )?peor dolor (?:de cabeza )?(?:de|en) (?:toda )?(?:su|mi) vida\b",
            r"\bdolor " + _words(2, space_first=False) + r"(?:insoportable|inaguantable|terrible|horrible|atroz"
            r"|insufrible|espantoso|brutal|fortisimo|fuertisimo|intensisimo|severo|horroroso)\b",
            r"\b(?:gritando|grita|llorando|retorciendose|se retuerce|se esta retorciendo|chillando|aullando) (?:de|del"
            r"|por el) dolor\b|\bno (?:aguanta|soporta) el dolor\b",
            r"\bdolor de cabeza (?:subito|repentino|en trueno|explosivo)\b|\bcefalea en trueno\b",
        ),
    ),
    "B-MENINGITIS-SIGNS": SpanishWording(
        (
            r"\b(?:cuello|nuca) " + _words(2, space_first=False) + r"(?:rigid[oa]|ties[oa]|duro|dura"
            r"|engarrotad[oa])\b|\brigidez (?:de|en)"
            r" (?:el |la )?(?:cuello|nuca)\b|\brigidez nucal\b|\bmeningi\w{0,4}\b",
            r"\bno (?:puede|puedo) (?:doblar|bajar|agachar) (?:el cuello|la cabeza|la barbilla)(?: (?:hacia|al|hasta"
            r" el) pecho)?\b",
        ),
        context=(
            *_FEVER,
            r"\bdolor de cabeza (?:subito|repentino|muy fuerte|terrible|horrible|insoportable)\b|\bpeor dolor de"
            r" cabeza\b|\bcefalea en trueno\b",
            r"\bfotofobia\b|\bla luz le (?:molesta|duele)\b|\bsensible a la luz\b|\ble molesta la luz\b",
            r"\bconfundid[oa]\b|\bletargic[oa]\b|\baletargad[oa]\b|\b(?:salpullido|sarpullido|ronchas|manchas"
            r"|erupcion)\b|\bmeningitis\b",
        ),
    ),
    "B-PURPURIC-RASH": SpanishWording(
        (
            r"\b(?:manchas|manchitas|puntos|puntitos|ronchas|granitos|sarpullido|salpullido|erupcion)"
            + _words(2)
            + r" (?:morad[oa]s?|moradit[oa]s|violeta|rojo oscuro|color vino|como moretones|de sangre)\b",
            r"\bpurpura\b|\bpetequia\w{0,2}\b",
            r"\b(?:manchas|puntos|puntitos|ronchas|sarpullido|salpullido|erupcion) (?:que )?no (?:se )?(?:quitan?"
            r"|desaparecen?|borran?|aclaran?|palidecen?|blanquean?|van) (?:al (?:apretar|presionar|aplastar)|con (?:el"
            r"|un) vaso)\b",
        ),
        context=(
            *_FEVER,
            r"\bletargic[oa]\b|\baletargad[oa]\b|\bdecaid[oa]\b|\bsin fuerzas\b|\bcomo (?:un )?trapo\b"
            r"|\bconfundid[oa]\b|\bmuy (?:enferm[oa]|mal|malit[oa])\b",
        ),
    ),
    "B-OVERDOSE-POISONING": SpanishWording(
        (
            r"\bsobredosis\b",
            r"\bse (?:paso|excedio) (?:con|de) (?:las |la |su )?(?:droga|drogas|pastillas|medicina|medicamento"
            r"|heroina|fentanilo|dosis)\b",
            r"\bse (?:tomo|trago|comio|tomaron|metio)\b" + _gap(15, lazy=True) + r"\b(?:todas|todos|un (?:frasco|bote"
            r"|puno|punado|monton)|una (?:caja|botella|tira)|el frasco|la caja"
            r"|el bote)\b" + _gap(25, lazy=True) + r"\b(?:pastillas|tabletas"
            r"|pildoras|medicinas|medicamentos|capsulas|pastas|chochos)\b",
            r"\benvenen\w{0,6}\b|\bintoxicad[oa]\b(?! (?:con|por) (?:comida|algo que comio|mariscos|alimentos))"
            r"|\bintoxicacion\b(?! alimentaria| por (?:comida|alimentos|mariscos))",
            r"\bmonoxido de carbono\b|\bmonoxido\b",
            r"\bnarcan\b|\bnaloxona\b",
        ),
    ),
    "B-LARGE-INGESTION": SpanishWording(
        (
            r"\b(?:se )?(?:tomo|trago|comio|metio|tomaron|ha tomado|ingirio)\s+(?:como |unas? |mas de |alrededor de"
            r" |aproximadamente |casi |hasta |al menos |por lo menos )?(?:\d{2,3}|veinte|treinta|cuarenta|cincuenta"
            r"|sesenta|cien|docenas de|un monton de)\b(?!\s*(?:mg|mcg|g|ml|cc|unidades|minutos|min|horas|hrs|dias"
            r"|anos)\b)" + _gap(30, lazy=True) + r"\b" + _DRUGS + r"\b",
            r"\b(?:se )?(?:tomo|trago|comio|metio|vacio|acabo)\b" + _gap(15, lazy=True) + r"\b(?:todo el (?:frasco"
            r"|bote|blister"
            r"|paquete|envase)|toda la (?:caja|botella|tira)|un (?:frasco|bote) (?:entero|completo)|una (?:caja"
            r"|botella|tira) (?:entera|completa)|el frasco entero|la caja entera|la botella entera|todas (?:las|sus)"
            r" (?:pastillas|tabletas|pildoras|capsulas|medicinas))\b",
            r"\b(?:frasco|bote|caja|blister|botella) (?:de (?:pastillas|medicina|medicamentos?|tabletas) )?vaci[oa]\b",
            r"\b(?:sobredosis|ingesta|intoxicacion) (?:intencional|voluntaria|a proposito|deliberada)\b|\bintento"
            r" de (?:sobredosis|envenenamiento|intoxicacion)\b",
            r"\b(?:se )?(?:tomo|trago|comio|bebio|tomaron)\b" + _gap(40) + r"\b(?:a proposito|intencionalmente|adrede"
            r"|deliberadamente|para (?:matarse|morirse|suicidarse|no despertar))\b",
            r"\b(?:intento|trato de|quiso|queria) (?:envenenarse|intoxicarse|tomarse una sobredosis|darse una"
            r" sobredosis)\b",
        ),
    ),
    "B-TOXIC-INGESTION": SpanishWording(
        (
            r"\b" + _INGEST + _WORD_GAP + _SUBSTANCES,
            r"\b"
            + _SUBSTANCES
            + _gap(30, lazy=True)
            + r"\b(?:se (?:lo|la|los|las) (?:trago|comio|tomo|bebio|metio a la boca)|en la boca"
            r"|ingerid[oa]s?|tragad[oa]s?)\b",
            r"\b(?:" + _INGEST[3:-1] + r"|agarro|encontro)\b" + _gap(25, lazy=True) + r"\b(?:pastillas?|tabletas?"
            r"|pildoras?|medicinas?"
            r"|medicamentos?|parches?|vitaminas)\b" + _gap(15, lazy=True) + r"\bde (?:la |el |su |mi |sus |mis "
            r"|los )?(?:abuel[oa]s?"
            r"|abuelit[oa]s?|mama|papa|madre|padre|tia|tio|herman[oa]|vecin[oa]|otra persona|alguien mas)\b",
            r"\b(?:se metio|se subio|agarro|abrio) (?:a |al |el |la )?(?:botiquin|gabinete de (?:las )?medicinas"
            r"|pastillero)\b",
        ),
    ),
    "B-PEDIATRIC-INGESTION": SpanishWording(
        (
            r"\b(?:se (?:trago|comio|metio|chupo|mastico)|trago|comio|ingirio|mastico|chupo|agarro|se tomo (?:todo"
            r"|toda|todas|todos|un monton|varias|muchas))" + _WORD_GAP + r"(?:[\w'-]+ )?(?:pastillas?|pastillitas"
            r"|tabletas?|pildoras?|capsulas?|medicinas?|medicamentos?|jarabe|vitaminas|gomitas|comestibles|parches?)\b",
            r"\b(?:pastillas?|tabletas?|capsulas?|medicinas?|medicamentos?) (?:ingeridas?|tragad[oa]s?)\b",
        ),
        context=_CHILD,
    ),
    "B-OBSTETRIC": SpanishWording(
        (
            r"\bya se (?:le )?ve la cabe(?:za|cita)\b|\bse (?:le )?ve la cabe(?:za|cita) del bebe\b|\bcoronando\b",
            r"\bya (?:viene|va a nacer|esta naciendo|esta saliendo) el bebe\b|\bel bebe (?:ya )?(?:viene|esta saliendo"
            r"|esta naciendo|ya sale|va a nacer)\b|\besta (?:dando a luz|pariendo)\b|\b(?:esta|ya esta) pujando\b"
            r"|\ba punto de (?:dar a luz|parir|nacer)\b",
            _PREGNANT + _gap(60) + r"\b(?P<also>dolor de cabeza|(?:le|me) duele (?:mucho )?la cabeza|vision borrosa"
            r"|(?:ve|veo) borroso|convulsi\w{0,6})",
            _LATE_PREGNANCY + _gap(60) + r"\b" + _PREECLAMPSIA_SIGN,
            r"\b(?:se (?:le )?ve|salio|esta saliendo|se (?:le )?salio|cuelga) (?:el )?cordon(?: umbilical)?\b"
            r"|\bcordon (?:umbilical )?(?:afuera|de fuera|por fuera|salido|colgando|prolapsado)\b|\bprolapso de"
            r" cordon\b",
            r"\b(?:eclampsia|preeclampsia|pre-eclampsia|desprendimiento de (?:la )?placenta|hellp)\b",
            r"\b(?:el )?bebe (?:ya )?no (?:se )?(?:mueve|ha movido|movia|patea|ha pateado)\b(?! (?:el|la|los|las|su"
            r"|sus)"
            r" \w+)|\bno (?:siente|siento|he sentido|ha sentido|sentia) (?:que se mueva|moverse|al bebe|el bebe|los"
            r" movimientos|patadas|que patee)\b|\b(?:menos|pocos|disminucion de|ausencia de) movimientos?"
            r" (?:fetales|del bebe)\b|\bel bebe se mueve (?:menos|muy poco|casi nada)\b",
        ),
    ),
    "B-PREGNANCY-RISK": SpanishWording(
        (
            _PREGNANT + _gap(60, lazy=True) + _PREGNANCY_SIGN,
            _PREGNANCY_SIGN.replace("?P<also>", "?:") + _gap(60, lazy=True) + r"(?P<also>" + _PREGNANT + ")",
            r"\bectopico\b(?<!antecedente de embarazo ectopico)(?<!antecedentes de embarazo ectopico)"
            r"(?<!historia de embarazo ectopico)(?<!historial de embarazo ectopico)" + _HISTORY_AHEAD,
            r"\b(?:no (?:le|me) (?:ha )?(?:bajado|baja|llegado|llega|viene|venido) (?:la regla|el periodo"
            r"|la menstruacion|su periodo|su regla)|se (?:le|me) (?:atraso|retraso|paso) (?:la regla|el periodo"
            r"|la menstruacion)|(?:regla|periodo|menstruacion) (?:atrasad[oa]|retrasad[oa])|retraso menstrual)\b"
            + _gap(60, lazy=True)
            + _PREGNANCY_SIGN,
        ),
    ),
    "B-TESTICULAR-TORSION": SpanishWording(
        (
            r"\b(?:testicul\w{0,3}|escrot\w{0,2}|testes?|partes (?:intimas|nobles"
            r"|privadas))\b" + _gap(20, lazy=True) + r"\b(?:dolor"
            r"|duele|duelen|hinchad[oa]s?|inflamad[oa]s?|torsion|torcid[oa])\b",
            r"\b(?:dolor|hinchazon|inflamacion|duele|duelen)\b" + _gap(20, lazy=True) + r"\b(?:testicul\w{0,3}"
            r"|escrot\w{0,2}|partes (?:intimas|nobles|privadas))\b",
            r"\btorsion\b(?! de (?:tobillo|rodilla|muneca|pie|cuello))",
        ),
        context=(
            r"\bde repente\b|\bderrepente\b|\bde golpe\b|\brepentin\w{0,4}|\bsubit\w{0,4}|\bagudo\b|\bfuerte\b"
            r"|\bsevero\b|\bintenso\b|\binsoportable\b|\b(?:lo|la|me) desperto\b|\bse desperto con\b|\btorsion\b",
            r"\bvomit\w{0,5}|\bnause\w{0,3}|\bhace (?:una|\d+|unas|pocas) horas?\b|\bdesde (?:esta manana|anoche"
            r"|hoy)\b",
            r"\b(?:mas )?(?:arriba|subido)\b",
        ),
    ),
    "B-HEAD-INJURY-RISK": SpanishWording(
        (
            r"\bse (?:pego|golpeo|dio|lastimo|rompio|abrio|descalabro|dio un golpe|dio un madrazo) (?:en |con "
            r"|contra )?(?:la |su )?cabeza\b|\bse descalabro\b|\bcayo de cabeza\b",
            r"\b(?:golpe|golpazo|trancazo|madrazo|chingadazo|chichon|chipote|herida|cortada|corte|pedrada)"
            r" (?:fuerte |muy fuerte )?(?:en|de) (?:la |su )?(?:cabeza|frente|mollera|craneo)\b",
            r"\b(?:lesion|trauma|traumatismo|herida|golpe) (?:en la |de |en el )?(?:cabeza|craneal"
            r"|craneoencefalico|cuero cabelludo)\b|\btraumatismo craneo\w{0,12}\b",
        ),
        context=(
            r"\b(?:perdio|perdida de|sin) (?:el )?(?:conocimiento|sentido|la conciencia|conciencia)\b|\bquedo"
            r" (?:inconsciente|noquead[oa]|privad[oa]|desmayad[oa])\b|\bse (?:desmayo|privo|desvanecio)\b"
            r"|\bnoquead[oa]\b",
            _ANTICOAGULANT,
            r"\bvomit\w{0,5}|\bdevolvi\w{0,3}\b",
            r"\bconvuls\w{0,6}",
            r"\bborrach[oa]\b|\btomad[oa]\b|\bebri[oa]\b|\bebriedad\b|\bbebiendo\b|\balcohol\b|\bcerveza\b"
            r"|\btequila\b|\bvodka\b|\bwhisky\b|\bmezcal\b|\baguardiente\b|\bguaro\b|\bpisto\b|\bintoxicad[oa]\b",
        ),
    ),
    "B-MAJOR-BURN": SpanishWording(
        (
            r"\bquemadur\w{0,2} (?:en|de) (?:la |el |su |toda la |todo el )?(?:cara|rostro|cuello|pecho|vias"
            r" respiratorias|via aerea|boca|todo el cuerpo|espalda)\b|\bse (?:quemo|le quemo|ha quemado) (?:toda )?"
            r"(?:la cara|el cuello|el pecho|todo el cuerpo|la espalda)\b|\bquemad[oa] (?:de|en) (?:la cara|el cuello"
            r"|el pecho|todo el cuerpo)\b",
            r"\b(?:cejas|pestanas) quemadas\b|\bse le quemaron (?:las cejas|los pelos de la nariz|las pestanas)\b"
            r"|\bhollin en (?:la boca|la nariz)\b",
            r"\bquemaduras? (?:grandes|extensas|graves|severas|de tercer grado|muy grandes)\b|\b(?:gran|grandes"
            r"|extensas|graves|severas) quemaduras?\b|\bquemad[oa] (?:en|por) todo el cuerpo\b",
            r"\b(?:incendio|fuego) (?:en|de) (?:la|su|mi) (?:casa|departamento|apartamento)\b" + _gap(60) + r"\b(?:quem"
            r"|humo)|\bse (?:incendio|quemo|esta incendiando|esta quemando) (?:la|su"
            r"|mi) casa\b" + _gap(60) + r"\b(?:quem"
            r"|humo)"
            r"|\bcasa se (?:esta )?(?:incendi|quem)\w{0,4}\b" + _gap(60) + r"\b(?:quem|humo)",
            r"\binhal\w{0,5} (?:de )?(?:mucho )?humo\b|\b(?:aspiro|trago|respiro) mucho humo\b|\bintoxicacion por"
            r" humo\b",
            r"\b(?:agua hirviendo|aceite (?:caliente|hirviendo))\b[^.]{0,80}\b(?:ampollas?|bebe|nin[oa]|cara|pecho)\b"
            r"|\bampollas?\b[^.]{0,60}\b(?:bebe|nin[oa]|cara|pecho)\b|\bse le (?:esta )?(?:cayendo|pelando) la piel\b",
        ),
    ),
    "B-TEMPERATURE-EXTREME": SpanishWording(
        (
            r"\bhipoterm\w{0,3}\b|\bgolpe de calor\b|\bhiperterm\w{0,3}\b",
            r"\b(?:lo|la) encontr\w{0,5} (?:tirad[oa] )?(?:afuera|en la calle|en la nieve|tirad[oa] afuera|en el frio"
            r"|a la intemperie)\b"
            + _gap(30)
            + r"\b(?:frio|fria|helad[oa]|congelad[oa]|toda la noche|horas|temblando)\b",
        ),
    ),
    "B-LIMB-ISCHEMIA": SpanishWording(
        (
            r"\bsindrome compartimental\b|\bdolor desproporcionado\b",
            r"\b(?:pierna|pie|brazo|mano|dedos|extremidad)\b" + _words(2) + r" (?:fri[oa]s? y (?:palid[oa]s?"
            r"|blanc[oa]s?"
            r"|morad[oa]s?|azul(?:es)?|dormid[oa]s?|sin pulso)|(?:palid[oa]s?|blanc[oa]s?|morad[oa]s?|azul(?:es)?) y"
            r" fri[oa]s?|helad[oa]s? y (?:palid[oa]s?|blanc[oa]s?|morad[oa]s?)|sin pulso)\b",
            r"\bno (?:tiene|hay|se (?:le )?(?:siente|encuentra)|le (?:siento|encuentro)) (?:el )?pulso (?:en|del|de la"
            r"|de) (?:el |la |su |mi )?(?:pie|pierna|brazo|mano|muneca|tobillo)\b",
        ),
    ),
    "B-ENVENOMATION": SpanishWording(
        (
            r"\b(?:mordedura|mordida|piquete|picadura) (?:de |por )?(?:una |un )?(?:vibora|serpiente|culebra|cascabel"
            r"|coralillo|coral|nauyaca|mocasin|cobra|alacran|escorpion|arana viuda negra|viuda negra|violinista)\b",
            r"\b(?:lo|la|le|me|nos) (?:mordio|pico|picaron|mordieron) (?:una |un |la |el )?(?:vibora|serpiente|culebra"
            r"|cascabel|coralillo|coral|nauyaca|mocasin|cobra|alacran|escorpion|viuda negra|arana viuda negra"
            r"|violinista)\b",
            r"\b(?:vibora|serpiente|culebra|cascabel|coralillo|nauyaca|alacran|escorpion|viuda negra)\b"
            + _gap(20)
            + r"\b(?:lo|la|le|me|nos) (?:mordio|pico)\b|\bemponzonamiento\b",
        ),
    ),
    "B-SEPSIS-NEUTROPENIA": SpanishWording(
        _FEVER,
        context=(
            r"\bquimio\w{0,7}\b",
            r"\btra(?:n)?splant\w{0,4}\b",
            r"\bneutropeni\w{0,2}\b|\bdefensas (?:bajas|muy bajas)\b|\bsistema inmune (?:debil|bajo|comprometido"
            r"|deprimido)\b|\binmunosupri\w{0,4}|\binmunodepri\w{0,4}|\binmunocomprometid\w{0,2}|\bvih\b|\bsida\b"
            r"|\bhiv\b",
            r"\b(?:toma|tomando|en tratamiento con|recibe|usa) (?:\w+ )?(?:esteroides|prednisona|dexametasona"
            r"|metotrexato|biologicos?|humira|remicade|tacrolimus|ciclosporina|micofenolato|cellcept)\b",
            r"\bdrepanocit\w{0,4}|\banemia falciforme\b|\bcelulas falciformes\b|\bsin bazo\b|\b(?:le quitaron|le"
            r" sacaron) el bazo\b|\besplenectom\w{0,3}|\basplen\w{0,3}",
            r"\bdialisis\b|\bhemodialisis\b|\binsuficiencia renal (?:cronica|terminal)\b",
            r"\bleucemia\b|\blinfoma\b|\bmieloma\b|\bmedula osea\b|\bcelulas madre\b|\bradioterapia\b",
            r"\bport-?a-?cath\b|\bpuerto (?:implantado|venoso)\b|\bcateter (?:central|venoso central|picc)\b|\bpicc\b",
        ),
    ),
    "B-NEONATE-ILL": SpanishWording(
        (
            *_FEVER,
            r"\bno (?:quiere |ha querido |puede )?(?:comer|mamar|lactar|alimentarse|agarrar el pecho|tomar (?:leche"
            r"|pecho|el pecho|su leche|la mamila|el biberon|la mamadera|el tetero|su formula|formula))\b|\bno (?:come"
            r"|mama|toma pecho|toma leche|esta comiendo|esta mamando)\b|\b(?:rechaza|rechazando) (?:el pecho|la leche"
            r"|la mamila|el biberon|la formula)\b|\bcome (?:muy )?poco\b",
            r"\bno (?:esta|anda|se ve|actua) (?:normal|como siempre)\b|\bno (?:es|parece) (?:el|ella) mism[oa]\b"
            r"|\bletargic[oa]\b|\baletargad[oa]\b|\bflacid[oa]\b|\baguadit[oa]\b|\bcomo (?:un )?trapo\b"
            r"|\bdesguanzad[oa]\b|\bdecaid[oa]\b",
            r"\bcuesta (?:mucho )?despertarl[oa]\b|\bdificil de despertar\b|\bno se despierta (?:para comer|bien)\b"
            r"|\bquejid\w{0,2}\b|\bse queja al respirar\b|\bpiel (?:marmorea|moteada|jaspeada)\b",
            r"\bhipotermi\w{0,2}\b|\brespira (?:muy )?(?:rapido|agitad[oa]|raro|feo|con esfuerzo)\b",
        ),
        context=_NEONATE,
    ),
    "B-INFANT-FEVER": SpanishWording(
        (
            *_FEVER,
            r"\b(?:se siente|esta|lo siento|la siento|se nota) (?:muy |bien )?calient(?:e|ito|ita)\b",
        ),
        context=_INFANT,
    ),
    "B-ILL-CHILD": SpanishWording(
        (
            r"\bno (?:esta|anda) (?:actuando )?(?:normal|como siempre)\b|\bno actua (?:normal|como siempre)\b"
            r"|\bno (?:es|parece) (?:el|ella) mism[oa]\b|\bflacid[oa]\b|\baguadit[oa]\b|\bcomo (?:un )?trapo\b"
            r"|\bdesguanzad[oa]\b|\bletargic[oa]\b|\baletargad[oa]\b|\bmuy apagad[oa]\b",
            r"\bcuesta (?:mucho )?despertarl[oa]\b|\bdificil de despertar\b",
            r"\bno (?:ha )?(?:moja|mojado|mojo) (?:el |los |su |sus )?panal(?:es)?\b|\bpanal(?:es)? sec[oa]s?\b",
            r"\bno (?:ha )?(?:orinado|hecho pipi|hecho pis|orina|hace pipi)\b" + _gap(15) + r"\b(?:en todo el dia|desde"
            r" (?:ayer|anoche|esta manana|hace (?:\d+|muchas|varias) horas)|en (?:(?:8|9|1\d|2\d|ocho|nueve|diez"
            r"|doce|veinte) horas|un dia))\b",
            r"\b(?:mollera|fontanela) hundida\b|\bojos hundidos\b|\bllora sin lagrimas\b|\bno le salen lagrimas\b",
        ),
        context=_CHILD,
    ),
    "B-HYPOGLYCEMIA-DKA": SpanishWording(
        (
            r"\b(?:azucar|glucosa|glicemia|glucemia|destro|dxt)\b\s*(?:(?:en|de|esta en|es de|esta|le salio|salio en"
            r"|marca|marco|bajo a|:)\s*){0,2}(?:[1-4]\d|[1-9])\b"
            r"(?![.,]\d|\s*(?:anos|dias|horas|minutos|semanas|veces|pastillas|tabletas|cucharadas|unidades))",
            r"\b(?:azucar|glucosa) (?:muy |bien |super )?baja\b|\bse (?:le|me) (?:bajo|cayo|esta bajando) (?:mucho )?"
            r"(?:el |la )?(?:azucar|glucosa)\b|\bbaja de azucar\b|\bbajon de azucar\b",
            r"\bhipogl[iu]cemi\w{0,2}\b|\bcetoacidosis\b",
        ),
    ),
    "B-ANAPHYLAXIS-RISK": SpanishWording(
        (
            r"\breaccion alergica\b|\b(?:le dio|le esta dando|tiene) (?:una )?alergia\b",
            r"\bronchas\b|\burticaria\b|\bhabones\b",
            r"\bepi-?pen\b|\bepinefrina\b",
        ),
        context=(
            r"\bhinch\w{0,5}|\binflam\w{0,5}",
            r"\bsilb\w{0,4}|\bchifl\w{0,4}",
            r"\brespir\w{0,5}|\baire\b",
            r"\bmare(?:o|os|ad[oa]|ando|a)\b",
            r"\bvomit\w{0,5}",
            r"\bepi-?pen\b|\bepinefrina\b",
            r"\b(?:picadura|piquete) de (?:abeja|avispa)|\b(?:lo|la|le|me) pic(?:o|aron) (?:una |unas |un )?"
            r"(?:abejas?|avispas?|abejorros?)\b",
            r"\bcacahuate\w{0,2}|\bmani\b|\bnueces\b|\bmariscos\b|\bcamarones?\b",
        ),
    ),
    "B-MISSED-DIALYSIS": SpanishWording(
        (
            r"\b(?:no (?:fue|ha ido|pudo ir|ha podido ir|asistio|se hizo|le hicieron|se ha hecho) (?:a )?(?:su |la )?"
            r"(?:sesion de )?(?:hemo)?dialisis|(?:falto|ha faltado|perdio|se salto|se brinco) (?:a )?(?:su |la |una"
            r" |dos )?(?:sesion(?:es)? de |cita de )?(?:hemo)?dialisis)\b(?! (?:cateter|fistula|acceso))",
            r"\b(?:dialisis|hemodialisis)\b" + _gap(15) + r"\b(?:la )?(?:perdio|falto|se salto|no fue|no la hizo"
            r"|no se la hicieron)\b",
        ),
    ),
    "B-ICD-SHOCK": SpanishWording(
        (
            r"\b(?:desfibrilador|dai|cardiodesfibrilador|marcapasos|aparat(?:o|ito) del corazon)\b"
            + _gap(30)
            + r"\b(?P<also>(?:le|me|lo|la) (?:dio|dieron|esta dando|ha dado|acaba de dar)"
            + _words(2)
            + r" (?:descargas?"
            r"|choques?|toques?|shocks?)|(?:se )?(?:disparo|activo|descargo))\b",
            r"\bdescargas? (?:de|del) (?:su |el |mi )?(?:desfibrilador|dai|marcapasos)\b",
        ),
    ),
    "B-SICKLE-CELL-CRISIS": SpanishWording(
        (
            r"(?<!rasgo )(?<!rasgo de )(?<!portador de )(?<!portadora de )(?<!celulas )\b(?:anemia )?(?:falciforme"
            r"|drepanocit\w{0,4}|celulas falciformes)\b|\bcrisis vaso-?oclusiva\b|\bsindrome toracico agudo\b",
        ),
        context=(
            r"\bcrisis\b|\bdolor\b|\bduele\b|\bduelen\b|\bpriapismo\b|\bpecho\b|\bfalta (?:de )?(?:el )?aire\b"
            r"|\bdificultad para respirar\b",
            *_FEVER,
        ),
    ),
    "B-WITHDRAWAL": SpanishWording(
        (
            r"\bdelirium tremens\b|\bdelirio tremens\b|\bconvulsiones por (?:abstinencia|dejar (?:de tomar|el alcohol"
            r"|la bebida))\b",
            r"\babstinencia (?:alcoholica|de alcohol|al alcohol|del alcohol|de benzodiacepinas|de clonazepam"
            r"|de alprazolam|de pastillas para dormir)\b|\b(?:dejo|ha dejado|dejar) (?:de (?:tomar|beber) (?:alcohol"
            r"|licor|cerveza|de golpe)|el alcohol|la bebida|el trago|el pisto|las benzodiacepinas|el clonazepam"
            r"|el alprazolam|el rivotril)\b|\b(?:dejo|ha dejado) de (?:tomar|beber)\b(?! (?:su|sus|la|las|el|los|esa"
            r"|esas|ese|esos|medicina|medicamento|pastillas|agua|leche))",
        ),
        context=(
            r"\btembl\w{0,5}|\btembladera\b|\btemblores?\b|\bsacudid\w{0,3}|\balucin\w{0,6}|\bve (?:bichos|animales"
            r"|cosas|gente)|\bviendo (?:bichos|animales|cosas)|\bconvuls\w{0,6}|" + _SWEAT + r"|\bagitad\w{0,2}"
            r"|\bconfundid[oa]\b|\binquiet[oa]\b",
            r"\bdelirium tremens\b|\bdelirio tremens\b",
        ),
    ),
    "B-CARDIAC-SYNCOPE": SpanishWording(
        (
            r"\bcorazon\b[^.]{0,10}\b(?:acelerado|muy rapido|le late muy rapido|late muy rapido|palpita|le brinca)\b"
            r"[^.]{0,80}\b(?:desmay|maread|dolor de pecho|se va a caer)",
            r"\b(?:se desmayo|se me fue el mundo|perdio el conocimiento)\b[^.]{0,80}\bcorazon\b[^.]{0,10}\b(?:acelerado"
            r"|muy rapido|palpitaba)",
        ),
    ),
    "B-BLEEDING": SpanishWording(
        (
            r"\bsangrando (?:mucho|bastante|un monton|muchisimo)\b|\b(?:mucha|muchisima) sangre\b",
            r"\bsangre por todos lados\b|\bsangra (?:mucho|bastante|un monton)\b",
        ),
    ),
}

SPANISH_RULES: dict[str, SpanishWording] = {**_A_RULES, **_B_RULES}

SPANISH_EXAMPLES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "A-NOT-BREATHING": (
        (
            "mi papa no esta respirando ayudenme por favor",
            "el bebe dejo de respirar",
            "mi esposo no respira, por favor ayúdenme",
            "ya no respira, se quedó quieto",
            "no está respirando!!",
            "dejo de respirar hace un minuto",
            "está boqueando, respira como ronquido",
            "casi no respira",
            "respira raro y no responde",
            "no responde y respira feo, como roncando",
            "se le paró la respiración",
            "mi bebé ni siquiera respira",
        ),
        (
            "no está boqueando, habla bien",
            "no tiene respiración agónica",
            "no respira bien por la nariz, está muy congestionado",
        ),
    ),
    "A-NO-PULSE": (
        (
            "no le siento el pulso y no respira",
            "creo que ya se murio no le late el corazon",
            "no tiene pulso",
            "no le encuentro el pulso, creo que está muerto",
            "le dio un paro cardíaco, le estamos haciendo RCP",
            "lo encontré sin pulso en el piso",
            "no le late el corazón",
            "se le paró el corazón",
            "el monitor marca asistolia",
        ),
        (
            "no fue un paro cardiaco, está hablando",
            "no tiene pulso en el pie izquierdo",
            "tuvo un paro hace 5 años, viene por receta",
        ),
    ),
    "A-RESUSCITATION": (
        (
            "le estoy dando compresiones como me dijo",
            "los paramedicos le estan dando rcp",
            "le estamos haciendo RCP",
            "mi vecino le está dando compresiones en el pecho",
            "los bomberos están haciendo rcp",
            "RCP en curso desde hace 10 minutos",
            "el DEA le dio una descarga",
            "lo desfibrilaron dos veces",
            "lo intubaron los paramédicos",
            "lo están reanimando",
        ),
        (
            "no le hicieron RCP, está hablando",
            "no está intubado, respira solo",
            "quiero inscribirme a un curso de RCP",
            "¿sabe hacer RCP? le voy a explicar cómo dar compresiones",
        ),
    ),
    "A-UNRESPONSIVE": (
        (
            "mi abuelo esta tirado en el piso y no reacciona",
            "no se despierta le hablo y nada",
            "está en el suelo y no responde",
            "mi mamá está inconsciente",
            "no lo puedo despertar",
            "no reacciona, le hablo y nada",
            "no despierta!!",
            "quedó sin conocimiento después del golpe",
            "no respira ni responde",
            "sigue desmayada y no vuelve en sí",
            "solo responde al dolor",
        ),
        (
            "no está inconsciente, me está hablando",
            "normalmente no responde, es su estado de siempre desde el derrame",
            "mi hija no contesta el teléfono",
        ),
    ),
    "A-CHOKING": (
        (
            "se esta ahogando con comida no puede respirar",
            "mi bebe se puso moradito",
            "se está ahogando con un pedazo de carne",
            "mi hijo se atragantó con un dulce",
            "tiene algo atorado en la garganta",
            "no puede hablar ni toser",
            "se está poniendo morado",
            "tiene los labios morados",
            "se le atoró una uva, está azul",
        ),
        (
            "no se está atragantando, ya tosió y lo sacó",
            "se ahoga al caminar desde hace una semana",
            "tiene la rodilla morada por el golpe",
        ),
    ),
    "A-SEVERE-BLEEDING": (
        (
            "se corto con la sierra y esta sangrando mucho",
            "hay mucha sangre no para de sangrar",
            "está sangrando mucho de la pierna",
            "no para de sangrar",
            "sangra a chorros, hay un charco de sangre",
            "hay sangre por todos lados",
            "está perdiendo mucha sangre",
            "se le cercenó el dedo con la sierra",
            "tiene una hemorragia muy fuerte",
        ),
        (
            "no está sangrando mucho, es una cortadita",
            "sin hemorragia, solo un raspón",
            "me corté el dedo pero ya no sangra",
        ),
    ),
    "A-ANAPHYLAXIS": (
        (
            "se le esta hinchando la lengua despues de la inyeccion",
            "le pico una abeja y se le cierra la garganta",
            "se le está cerrando la garganta después de comer cacahuates",
            "se le hinchó la lengua",
            "tiene los labios hinchados y le cuesta respirar",
            "choque anafiláctico",
            "siente la garganta cerrada",
        ),
        (
            "no tiene la lengua hinchada, solo ronchas",
            "tengo la garganta inflamada desde ayer",
            "sin hinchazón de la garganta",
        ),
    ),
    "A-SEIZURE-ONGOING": (
        (
            "mi hijo sigue convulsionando ya van como diez minutos",
            "no le para la convulsion",
            "sigue convulsionando",
            "no para de convulsionar",
            "lleva convulsionando desde hace 10 minutos",
            "la convulsión no se le quita",
            "convulsiona sin parar",
        ),
        (
            "ya no sigue convulsionando, está dormido",
            "no está en estado epiléptico, ya pasó",
        ),
    ),
    "A-HANGING-DROWNING": (
        (
            "el nino se cayo a la alberca y se estaba ahogando",
            "lo encontre colgado en el garaje",
            "lo encontré ahorcado en el cuarto",
            "se ahogó en la alberca, lo sacamos",
            "mi hijo casi se ahoga en la piscina",
            "lo sacaron del agua ahogado",
            "se electrocutó con un cable",
            "le dio una descarga eléctrica",
        ),
        (
            "no se ahogó, salió solo de la alberca",
            "no fue electrocutado, solo sintió un toque leve",
        ),
    ),
    "B-SEIZURE": (
        (
            "le dio una convulsión",
            "está convulsionando",
            "mi hijo tuvo un ataque epiléptico",
            "le dio epilepsia y echó espuma por la boca",
            "tuvo otra convulsion hace rato",
        ),
        (
            "no ha tenido convulsiones",
            "niega convulsiones",
            "necesito la receta de la medicina para las convulsiones",
        ),
    ),
    "B-STRANGULATION": (
        (
            "mi esposo me ahorcó con las manos",
            "la quiso estrangular",
            "le puso las manos en el cuello y la apretó",
            "intentó ahorcarse con una cuerda",
        ),
        (
            "niega estrangulamiento",
            "no la estrangularon, solo discutieron",
        ),
    ),
    "B-STROKE-SIGNS": (
        (
            "mi mama tiene la boca chueca y se le traba la lengua",
            "tiene la cara chueca y habla arrastrando las palabras",
            "se le cayó la boca de un lado",
            "de repente no puede mover el brazo derecho",
            "creo que le está dando un derrame cerebral",
            "el brazo izquierdo sin fuerza, se le durmió",
            "habla como borracho y no ha tomado",
            "debilidad del lado derecho",
        ),
        (
            "no tiene la cara chueca, habla bien",
            "tuvo un derrame hace 4 años, viene por su receta",
            "antecedentes de derrame cerebral, ahora tiene tos",
            "el brazo izquierdo no está débil",
        ),
    ),
    "B-VISION-LOSS": (
        (
            "de repente no ve nada del ojo derecho",
            "perdió la vista de un ojo",
            "no puede ver del ojo izquierdo",
            "se quedó ciego de golpe",
        ),
        (
            "no ha perdido la vista",
            "niega pérdida de visión, solo le pica el ojo",
        ),
    ),
    "B-CHEMICAL-EYE": (
        (
            "le cayó cloro en los ojos",
            "le salpicó ácido en el ojo en el trabajo",
            "se le metió cal en el ojo",
            "quemadura química en el ojo izquierdo",
        ),
        (
            "no le cayó cloro en el ojo, solo polvo",
            "sin químicos en los ojos",
        ),
    ),
    "B-CHEST-PAIN-RISK": (
        (
            "tengo 60 anos y me duele el pecho y el brazo izquierdo",
            "señor de 58 años con dolor en el pecho que se le va al brazo izquierdo",
            "le duele el pecho y está sudando frío",
            "dolor de pecho después de usar cocaína",
            "siente como un peso en el pecho, tiene náuseas",
            "creo que le está dando un infarto, está pálido",
        ),
        (
            "58 años, niega dolor de pecho, sudando después de correr",
            "no tiene dolor en el pecho, tiene náuseas",
            "me duele el pecho cuando toso, tengo 25 años",
        ),
    ),
    "B-AORTIC-DISSECTION": (
        (
            "dice que siente como si lo estuvieran desgarrando por dentro",
            "dolor desgarrante en la espalda de repente",
            "tiene un aneurisma y creo que se le rompió el aneurisma",
        ),
        (
            "no tiene dolor desgarrante",
            "niega sensación de desgarro en la espalda",
        ),
    ),
    "B-GI-BLEEDING": (
        (
            "está vomitando sangre",
            "tiene las heces negras desde la mañana",
            "vomitó como asiento de café",
            "diarrea con sangre desde anoche",
        ),
        (
            "no ha vomitado sangre",
            "niega heces negras",
        ),
    ),
    "B-GI-BLEED-RISK": (
        (
            "mi mamá de 80 años tiene sangre en la popo",
            "toma warfarina y tiene sangrado rectal, está mareado",
            "sangra por el recto y está muy pálido",
        ),
        (
            "80 años, sin sangre en las heces",
            "toma warfarina, no tiene sangrado rectal",
        ),
    ),
    "B-SUICIDAL": (
        (
            "mi hijo dice que se quiere matar",
            "dice que se quiere matar",
            "mi hijo se quiere suicidar",
            "tiene ideas suicidas",
            "ya no quiere vivir",
            "amenaza con tirarse del puente",
            "se cortó las venas",
            "escucha voces que le dicen que se mate",
        ),
        (
            "niega ideas suicidas",
            "no quiere hacerse daño, solo está triste",
        ),
    ),
    "B-VIOLENCE-THREAT": (
        (
            "el hombre tiene una pistola y amenaza con dispararnos",
            "hay un tipo armado afuera",
            "dice que va a matar a su vecino",
            "mi hermano trae un cuchillo",
            "nos quiere matar",
        ),
        (
            "no está amenazando con matar a nadie",
            "niega ideación homicida",
        ),
    ),
    "B-ASSAULT-ABUSE": (
        (
            "a mi hija la violaron anoche",
            "fue víctima de abuso sexual",
            "sospecho maltrato infantil, tiene moretones viejos",
            "el cuidador golpea a mi abuela",
        ),
        (
            "niega agresión sexual",
            "no hay señales de maltrato infantil",
        ),
    ),
    "B-DOMESTIC-VIOLENCE": (
        (
            "mi esposo me golpeó y tengo el ojo hinchado",
            "su novio la pateó en la cara",
            "fue golpeada por su pareja, le sangra la boca",
            "violencia doméstica, ella tiene una herida en la cabeza",
        ),
        (
            "pleito familiar, sin lesiones",
            "su novio no le pegó",
        ),
    ),
    "B-PENETRATING-TRAUMA": (
        (
            "lo apunalaron en la panza",
            "lo apuñalaron en el brazo",
            "le dispararon",
            "tiene una herida de bala en el pecho",
            "recibió dos balazos",
            "tiene un cuchillo clavado en la espalda",
        ),
        (
            "no lo apuñalaron, se tropezó",
            "me picaron los mosquitos y se me hinchó",
        ),
    ),
    "B-HIGH-RISK-MECHANISM": (
        (
            "atropellaron a un senor en la esquina",
            "lo atropelló un carro",
            "un carro le pegó a mi hijo en la bicicleta",
            "salió volando del carro",
            "la camioneta se volcó dos veces",
            "el otro conductor murió",
            "accidente de moto, está consciente",
            "choque a alta velocidad en la autopista",
            "está atrapado dentro del carro",
        ),
        (
            "no salió expulsado, traía cinturón",
            "sin volcadura, fue un choque leve",
        ),
    ),
    "B-FALL-FROM-HEIGHT": (
        (
            "se cayó del techo",
            "se cayó de la escalera",
            "se cayó de como 8 metros",
            "se cayó desde un segundo piso",
            "mi hijo se cayó por la ventana",
        ),
        (
            "no se cayó del techo, se tropezó en el jardín",
            "niega caída de altura",
        ),
    ),
    "B-PEDIATRIC-FALL": (
        (
            "mi niño de 4 años se cayó de un árbol",
            "la niña se cayó de unos 4 metros",
            "mi hijo se cayó del doble de su altura",
        ),
        (
            "mi niña de 4 años no se cayó del árbol, se tropezó",
            "se cayó de un árbol, tiene 40 años",
        ),
    ),
    "B-ELDERLY-FALL": (
        (
            "mi abuela de 82 años se cayó por las escaleras",
            "señor de 78 años rodó escaleras abajo, toma Eliquis",
        ),
        (
            "80 años, no se cayó por las escaleras, se tropezó con la alfombra",
            "se cayó por las escaleras, tiene 30 años",
        ),
    ),
    "B-DIVING-INJURY": (
        (
            "se tiró un clavado en la parte baja de la alberca y le duele el cuello",
            "se aventó al río de cabeza y no siente las manos",
        ),
        ("se tiró a la alberca, sin dolor de cuello, sin hormigueo",),
    ),
    "B-ALTERED-MENTAL-STATUS": (
        (
            "está confundida y desorientada",
            "se desmayó en la cocina",
            "no sabe dónde está",
            "está actuando muy raro desde la tarde",
            "perdió el conocimiento un momento",
        ),
        (
            "no está confundida",
            "alerta, no desorientado",
        ),
    ),
    "B-RESPIRATORY-DISTRESS": (
        (
            "mi hijo tiene asma y no puede respirar",
            "no puede respirar",
            "tiene un ataque de asma muy fuerte, solo dice una o dos palabras",
            "no le entra el aire",
            "el niño está batallando para respirar, se le hunden las costillas",
            "se despertó boqueando, está sentado en la orilla de la cama",
            "tiene que estar sentado para poder respirar",
        ),
        ("sin dificultad respiratoria severa, respira bien", "no está boqueando, respira tranquilo"),
    ),
    "B-PE-RISK": (
        (
            "le falta el aire y toma pastillas anticonceptivas",
            "le cuesta respirar, la operaron de la rodilla hace 2 semanas",
            "falta de aire y tiene la pantorrilla hinchada",
            "dio a luz hace una semana y ahora le falta el aire",
        ),
        (
            "toma anticonceptivos, no le falta el aire",
            "no tiene falta de aire, tiene la pierna hinchada",
        ),
    ),
    "B-SEVERE-PAIN": (
        (
            "el peor dolor de cabeza de su vida",
            "tiene un dolor insoportable en el estómago",
            "está gritando de dolor",
        ),
        (
            "no tiene dolor insoportable",
            "niega dolor severo",
        ),
    ),
    "B-MENINGITIS-SIGNS": (
        (
            "tiene fiebre y el cuello rígido",
            "dolor de cabeza repentino y rigidez en la nuca",
            "tiene calentura y no puede bajar la cabeza hacia el pecho",
        ),
        (
            "fiebre, sin rigidez de cuello",
            "tiene fiebre, el cuello no está rígido",
            "no tiene el cuello rígido, dolor de cabeza leve",
        ),
    ),
    "B-PURPURIC-RASH": (
        (
            "mi hijo tiene fiebre y manchas moradas que no se quitan al apretar",
            "tiene petequias y está muy decaído",
        ),
        (
            "fiebre, sin petequias",
            "no tiene manchas moradas, las ronchas se quitan al apretar",
        ),
    ),
    "B-OVERDOSE-POISONING": (
        (
            "creo que es una sobredosis no despierta",
            "creo que tuvo una sobredosis de heroína",
            "se tomó todo un frasco de pastillas",
            "la envenenaron",
            "hay monóxido de carbono en la casa",
            "le pusimos Narcan",
        ),
        (
            "no hay sospecha de sobredosis",
            "creo que es intoxicación alimentaria por unos mariscos",
        ),
    ),
    "B-LARGE-INGESTION": (
        (
            "se tomó 30 pastillas para dormir",
            "se tragó todo el frasco de Tylenol",
            "encontré el frasco de pastillas vacío",
            "se tomó las pastillas a propósito, ahora se siente bien",
            "tomó como 50 tabletas de ibuprofeno",
        ),
        (
            "niega ingesta intencional",
            "no se tomó 30 pastillas, se tomó 2",
        ),
    ),
    "B-TOXIC-INGESTION": (
        (
            "mi hijo se tragó una pila de botón",
            "se tomó anticongelante",
            "el niño bebió cloro",
            "se comió unas pastillas de la abuela",
            "se tragó unos imanes",
        ),
        (
            "no se tragó ninguna pila de botón",
            "niega haber tomado cloro",
        ),
    ),
    "B-PEDIATRIC-INGESTION": (
        (
            "mi niño de 3 años se tragó unas pastillas",
            "la bebé se comió las vitaminas en gomitas",
        ),
        (
            "mi hijo de 3 años no se tragó ninguna pastilla",
            "se tragó unas pastillas, tiene 40 años y está bien",
        ),
    ),
    "B-OBSTETRIC": (
        (
            "ya viene el bebe ya se le ve la cabecita",
            "ya se le ve la cabeza al bebé",
            "tiene 32 semanas de embarazo y dolor de cabeza con visión borrosa",
            "el bebé ya no se mueve desde ayer",
            "se le ve el cordón umbilical",
            "está embarazada y tuvo una convulsión",
        ),
        (
            "32 semanas de embarazo, sin dolor de cabeza ni visión borrosa",
            "todavía no se le ve la cabeza, contracciones cada diez minutos",
        ),
    ),
    "B-PREGNANCY-RISK": (
        (
            "estoy embarazada y estoy sangrando mucho",
            "está embarazada y está sangrando",
            "tengo 8 semanas de embarazo y un dolor fuerte en el vientre",
            "rompió fuente y está sangrando, está embarazada de 30 semanas",
            "no le ha bajado la regla y tiene dolor fuerte en el bajo vientre",
            "creo que es un embarazo ectópico",
        ),
        (
            "no está embarazada, tiene dolor de estómago",
            "está embarazada, niega sangrado",
            "la prueba de embarazo salió negativa, dolor abdominal",
            "no le ha bajado la regla, no tiene sangrado",
        ),
    ),
    "B-TESTICULAR-TORSION": (
        (
            "mi hijo de 14 años se despertó con un dolor muy fuerte en un testículo",
            "dolor de testículo de repente hace 2 horas, con vómito",
        ),
        (
            "no tiene dolor testicular",
            "niega dolor o hinchazón de los testículos",
        ),
    ),
    "B-HEAD-INJURY-RISK": (
        (
            "se pegó en la cabeza y toma anticoagulantes",
            "golpe en la cabeza, perdió el conocimiento un minuto",
            "se cayó, se golpeó la cabeza y está vomitando",
        ),
        ("se pegó en la cabeza, no toma anticoagulantes, no perdió el conocimiento, no ha vomitado",),
    ),
    "B-MAJOR-BURN": (
        (
            "tiene quemaduras en la cara por la estufa",
            "inhaló mucho humo en el incendio de su casa",
            "quemaduras graves en los brazos",
        ),
        ("no inhaló humo, solo una quemadura pequeña en el dedo",),
    ),
    "B-TEMPERATURE-EXTREME": (
        (
            "lo encontraron afuera en la nieve, está helado, tiene hipotermia",
            "le dio un golpe de calor trabajando en el campo",
        ),
        (
            "no tiene hipotermia, 36.8 de temperatura",
            "no fue golpe de calor, solo está cansado",
        ),
    ),
    "B-LIMB-ISCHEMIA": (
        (
            "tiene la pierna fría y pálida y no la siente",
            "el pie está frío y sin pulso",
            "no tiene pulso en el pie izquierdo",
        ),
        (
            "el pie está tibio, sin síndrome compartimental",
            "niega dolor desproporcionado",
        ),
    ),
    "B-ENVENOMATION": (
        (
            "lo mordió una víbora de cascabel",
            "mordedura de serpiente en la mano",
            "a mi niño le picó un alacrán",
        ),
        (
            "no fue mordedura de víbora, lo mordió un perro",
            "niega mordedura de serpiente",
        ),
    ),
    "B-SEPSIS-NEUTROPENIA": (
        (
            "tiene fiebre de 38.5 y está en quimioterapia",
            "tiene un trasplante de riñón y tiene calentura",
            "tiene VIH y fiebre",
            "temperatura de 39, anemia falciforme",
            "fiebre, está en diálisis",
        ),
        (
            "no tiene fiebre, está en quimio",
            "sin fiebre, trasplante de riñón hace 2 años",
        ),
    ),
    "B-NEONATE-ILL": (
        (
            "mi bebé de 10 días no quiere comer y está muy aguadito",
            "recién nacido con fiebre",
            "tiene 2 semanas de nacido y no está normal",
        ),
        ("mi bebé de 10 días no tiene fiebre y come bien",),
    ),
    "B-INFANT-FEVER": (
        (
            "mi bebé de 6 semanas tiene fiebre",
            "mi bebé de 2 meses tiene calentura",
            "recién nacido, lo siento muy caliente",
        ),
        (
            "mi bebé de 6 semanas no tiene fiebre, solo mocos",
            "tiene fiebre, tiene 40 años",
        ),
    ),
    "B-ILL-CHILD": (
        (
            "mi nina de 1 ano no ha mojado el panal desde ayer",
            "mi niño de 2 años no está actuando normal y tiene fiebre",
            "la niña no moja el pañal desde ayer",
            "mi bebé está como un trapo, aguadito",
            "mi hijo tiene los ojos hundidos y llora sin lágrimas",
        ),
        (
            "mi hijo de 2 años no está aguadito, está jugando",
            "mi esposo no moja el pañal, tiene 70 años",
        ),
    ),
    "B-HYPOGLYCEMIA-DKA": (
        (
            "es diabetico y tiene el azucar en 30 esta sudando",
            "tiene el azúcar en 35",
            "es diabético y tiene el azúcar muy baja",
            "se le bajó el azúcar y está sudando",
            "creo que es cetoacidosis",
        ),
        ("no tiene el azúcar baja, ya la checó",),
    ),
    "B-ANAPHYLAXIS-RISK": (
        (
            "le dio una reacción alérgica con hinchazón de labios después de una picadura de abeja",
            "tiene ronchas y le cuesta respirar",
        ),
        (
            "sin ronchas ni hinchazón, una picadura de abeja",
            "tiene ronchas en los brazos desde ayer",
        ),
    ),
    "B-MISSED-DIALYSIS": (
        (
            "no fue a diálisis ayer, se sentía muy débil",
            "faltó a dos sesiones de hemodiálisis",
        ),
        ("no ha faltado a diálisis",),
    ),
    "B-ICD-SHOCK": (
        (
            "el desfibrilador le dio una descarga",
            "su DAI se disparó tres veces hoy",
        ),
        ("su desfibrilador no le ha dado descargas",),
    ),
    "B-SICKLE-CELL-CRISIS": (
        (
            "tiene anemia falciforme y está en crisis",
            "tiene drepanocitosis y le duele mucho el pecho",
        ),
        (
            "no tiene anemia falciforme, le duele la rodilla por una caída",
            "tiene rasgo falciforme, se torció el tobillo y le duele",
        ),
    ),
    "B-WITHDRAWAL": (
        (
            "dejó de tomar alcohol de golpe y está temblando y viendo bichos",
            "tiene delirium tremens",
        ),
        (
            "niega abstinencia alcohólica, no tiene temblores",
            "no tiene delirium tremens",
        ),
    ),
    "A-NOT-BREATHING-NORMALLY": (
        (
            "mi papa esta tirado en el piso no despierta y respira bien raro",
            "se desmayó y está roncando, no responde",
            "está inconsciente y hace ruidos raros al respirar",
            "no reacciona y tiene los labios morados",
            "se desplomó, no me contesta y no sé si respira",
            "está tirado en la calle, no se mueve, se puso todo morado",
        ),
        (
            "respira raro pero está despierto y me habla",
            "ronca por las noches, está bien",
            "no sé si respira bien, pero me contesta",
        ),
    ),
    "A-SEVERE-RESPIRATORY-DISTRESS": (
        (
            "tiene asma y solo puede decir dos palabras",
            "al bebé se le hunden las costillas cuando respira",
            "no puede terminar una frase, le falta el aire",
            "el niño está quejándose al respirar",
        ),
        ("habla normal, no se le hunden las costillas", "puede decir frases completas"),
    ),
    "A-SHOCK": (
        (
            "está fría y sudorosa, muy pálida",
            "vomita sangre y se marea al pararse",
            "tiene la piel gris y moteada",
            "está pálido y frío, sudando mucho",
        ),
        ("no está fría ni sudorosa", "se mareó al ver la aguja"),
    ),
    "B-CARDIAC-SYNCOPE": (
        (
            "tengo el corazón acelerado y siento que me voy a desmayar",
            "se desmayó y dice que el corazón le latía muy rápido",
        ),
        ("tiene el corazón acelerado porque corrió, pero está bien",),
    ),
    "B-BLEEDING": (
        ("se cortó la mano y está sangrando mucho", "hay mucha sangre en el baño"),
        ("no está sangrando mucho, ya casi paró",),
    ),
}

SPANISH_CALM_MESSAGES: tuple[str, ...] = (
    "me torcí el tobillo jugando fútbol, está un poco hinchado",
    "tengo gripa desde hace tres días, sin fiebre",
    "necesito una receta de mi medicina para la presión",
    "me corté el dedo pero ya no sangra",
    "mi hijo tiene tos",
    "me duele la muela",
    "tengo una cita el martes, ¿a qué hora abren?",
    "quiero cambiar mi cita con el doctor",
    "tengo un salpullido en el brazo que me pica desde hace una semana",
    "me duele el oído desde ayer",
    "vengo a que me quiten los puntos",
    "tengo tos y mocos desde hace dos días",
    "me duele la espalda baja por cargar cajas",
    "necesito la vacuna del tétanos, me enterré un clavo en el pie",
    "creo que me cayó mal la comida, vomité dos veces",
    "tengo los ojos rojos y con lagañas en la mañana",
    "me arde al orinar",
    "me duele la cabeza desde hace dos días, me tomé un paracetamol",
    "me pegué en el dedo del pie, está morado",
    "mi niño de 7 años tiene un poco de calentura y tos",
    "tengo la garganta inflamada y me duele al tragar",
    "no sé qué hacer, mi hija tiene diarrea desde ayer pero come bien",
    "mi papá no habla inglés, necesita un intérprete para su cita",
    "tengo 12 semanas de embarazo y náuseas, sin sangrado ni dolor",
    "antecedentes de derrame hace 5 años, ahora tiene tos",
    "me picaron los mosquitos y tengo ronchitas",
    "tengo la nariz tapada y estornudo mucho",
    "me salió un grano en la espalda",
    "mi mamá no contesta el teléfono, quiero saber si la atendieron",
    "se me acabaron las pastillas de la tiroides",
    "¿pueden mandarme los resultados de mis análisis?",
    "estaba colgando un cuadro y me caí de una silla, me duele la muñeca",
    "me duele la garganta y tengo tos desde el lunes",
    "quiero saber si mi receta ya esta lista",
    "tengo comezon en los pies",
    "mi hijo se raspo la rodilla en el parque",
    "me pico un mosquito y se me hincho un poquito el brazo",
    "no se si tengo que ayunar para mis analisis",
)
