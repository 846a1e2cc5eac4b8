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
SPANISH_NEGATIVE_FORM = r"\b(?:no|ni|sin|nunca|dejo de|deja de|ha dejado de|paro de|se paro|se detuvo)\b"
"""Which patterns state a red flag as a negation ("no respira", "sin pulso"): their matches are masked before
negation scopes are looked for, as rules._NEGATIVE_FORM does for the English ones."""

# Shared wording. Every gap is bounded ([^.]{0,40}) so matching stays linear-time.
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
    r"\b(?:bebe|nin[oa]|hij[oa]|nene|nena)\b[^.]{0,20}\btiene (?:"
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
    r"\b(?:6[5-9]|[7-9]\d|1[01]\d) ?(?:anos|a)\b",
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
            r"\b(?:no|ni) (?:siquiera )?(?:esta |estaba )?respir(?:a|aba|ando|o)\b(?! (?:bien|normal|como siempre"
            r"|muy bien|tan bien|por la nariz|por la boca|hondo|profundo))",
            r"\b(?:dejo|deja|ha dejado|dejaba|paro|ha parado) de respirar\b",
            r"\bse (?:le )?(?:paro|detuvo|fue|corto) la respiracion\b|\bparo respiratorio\b",
            r"\bsin respira(?:r|cion)\b|\bno (?:tiene|hay) respiracion\b",
            r"\bno (?:lo |la |le )?(?:veo|siento|escucho|oigo|vemos) (?:que )?respir(?:ar|e|ando)\b",
            r"\b(?:apenas|casi no|casi ni) respira\b",
            r"\bapneic[oa]\b|\ben apnea\b|\bagonic[oa]s?\b|\bboquea(?:ndo|ba)?\b|\bbocanadas\b",
            # Abnormal breathing in someone who does not respond is treated as not breathing (dispatch protocol).
            r"\brespira (?:muy )?(?:raro|feo|extrano|rarito|con dificultad|roncando|como ronquido)\b[^.]{0,40}?"
            r"\b(?P<also>no (?:responde|despierta|reacciona|contesta))\b",
            r"\bno (?:responde|despierta|reacciona|contesta)\b[^.]{0,40}?\b(?P<also>respira (?:muy )?(?:raro|feo"
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
            r"\bcodigo azul\b",
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
            r"\b(?:haciendo|hacer|hago|hace|hacen|hacemos|hicieron|hizo|hice|haciendole|dando|dar|doy|da|dan|damos"
            r"|dieron|dandole|empez\w{0,5}|comenz\w{0,5}|inici\w{0,5}|sigue|siguen|seguimos|sigo|continua\w{0,3}"
            r"|practic\w{0,5}|aplic\w{0,5})\b[^.]{0,25}(?<!curso de )(?<!cursos de )(?<!clase de )(?<!clases de )"
            r"(?<!taller de )(?<!certificado de )(?<!certificacion de )\b(?:rcp|reanimacion cardiopulmonar"
            r"|resucitacion cardiopulmonar|masaje cardiaco|compresiones(?: toracicas| en el pecho| de pecho)?"
            r"|respiracion (?:de )?boca a boca|boca a boca)\b",
            r"\brcp (?:en curso|en progreso|en marcha|iniciada|activa|continua|por (?:testigos|familiares|bomberos"
            r"|la familia|paramedicos|la policia))\b",
            r"\b(?:lo|la|le|les) (?:desfibrilaron|desfibrilo|desfibrile|desfibrilamos|cardiovirtieron)\b",
            r"\b(?:dea|desfibrilador externo|desfibrilador automatico)\b[^.]{0,20}\b(?P<also>(?:le |lo |la )?(?:dio"
            r"|dieron|dimos|di|aplico|aplicamos)(?: \w+){0,2}? (?:descargas?|choques?)|descarg\w{0,5}"
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
            r"(?<!normalmente )(?<!siempre )(?<!usualmente )(?<!nunca )\b(?:no|ni) (?:me |nos |le |les )?"
            r"(?:responde|reacciona|contesta|despierta|se despierta|abre los ojos|quiere despertar)\b"
            r"(?! (?:el |al |a |a la |a los |a mis |mis |los |las |sus |la |bien )?(?:telefono|celular|cel|mensajes?"
            r"|llamadas?|whatsapp|textos?|correos?|tratamiento|medicamentos?|medicinas?|antibioticos?|pastillas"
            r"|puerta|preguntas?|temprano))",
            r"\bno (?:lo|la|le) (?:puedo|podemos|pueden|pude|pudimos) despertar\b|\bno (?:puedo|podemos|pueden)"
            r" despertarl[oa]\b|\bno hay (?:manera|forma) de despertarl[oa]\b",
            r"\bno (?:vuelve|ha vuelto|volvia|regresa) en si\b",
            r"\b(?:esta|sigue|continua|todavia esta|aun esta) desmayad[oa]\b",
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
            r"\b(?:atorad[oa]|atascad[oa]|trabad[oa]|atravesad[oa]|atoro|atora|atasco|trabo|atraveso)\b[^.]{0,25}?"
            r"\ben (?:la|su|mi) garganta\b",
            r"\bse le (?:atoro|atasco|atraveso|trabo|fue por el otro lado)\b",
            r"\bno (?:puede|pudo|podia) (?:hablar|respirar) ni toser\b|\bno (?:puede|pudo|podia) (?:toser|respirar)"
            r" ni hablar\b",
            r"\bobstruccion de (?:la )?via aerea\b|\bvia aerea (?:obstruida|bloqueada|tapada)\b",
            _CYANOSIS_BEFORE + r"\b(?:se (?:esta poniendo|puso|pone|ha puesto|volvio|le puso)|esta|se ve|esta bien"
            r"|esta todo|esta toda) (?:todo |toda |bien |muy )?(?:moradit[oa]|morad[oa]|azul|azulad[oa]|azulit[oa]"
            r"|negrit[oa])\b",
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
            r"|\bcolgad[oa] (?:del cuello|de una (?:soga|cuerda|viga|sabana)|del techo|de la regadera)\b",
            r"\b(?:casi )?se (?:esta |estaba )?ahog(?:ando|o|a)\b[^.]{0,30}\b" + _WATER + r"\b",
            r"\b" + _WATER + r"\b[^.]{0,40}\b(?:casi )?se (?:esta |estaba )?ahog(?:ando|o|aba|a)\b",
            r"\bahogamiento\b|\b(?:lo|la|le) sac(?:aron|amos|ue|o) (?:ahogad[oa] )?del? " + _WATER + r"\b",
            r"\belectrocut\w{0,6}\b|\b(?:descarga|choque) electric[oa]\b",
            r"\b(?:toco|agarro|le dio|le pego|lo agarro|la agarro|lo jalo)\b[^.]{0,20}\b(?:alta tension|alto voltaje"
            r"|la corriente|un cable pelado)\b",
        ),
    ),
}

SPANISH_RULES: dict[str, SpanishWording] = {**_A_RULES}
