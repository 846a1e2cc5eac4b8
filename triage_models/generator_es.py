"""Spanish callers for the training-data generator: each scenario in a Latin American caller's own words.

Phrasings are written for this project (not translated from a source). A complaint is a predicate whose subject the
caller names first ("mi esposo" + "no respira y no responde"), unless it places the patient itself with `{quien}`
("a {quien} le duele el pecho"). Gender placeholders: `{o}` ends an adjective (cansad{o}: cansado / cansada), `{el}`
is él / ella, `{lo}` is lo / la. `{n}` is a small number. Half the calls are written as a call-taker types them
while listening: lower case, accents often dropped, no punctuation, fillers ("este", "eh", "o sea", "pues").
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SpanishPhrasing:
    """How Spanish-speaking callers describe one scenario: complaints, and details they add."""

    complaints: tuple[str, ...]
    details: tuple[str, ...] = ()


def _p(complaints: tuple[str, ...], details: tuple[str, ...] = ()) -> SpanishPhrasing:
    return SpanishPhrasing(complaints, details)


SPANISH: dict[str, SpanishPhrasing] = {
    # ESI 1
    "cardiac-arrest": _p(
        (
            "se desplomó y no respira, no tiene pulso",
            "se cayó de repente y ya no respira",
            "no respira y no le siento el pulso",
            "está tirad{o} en el piso, no respira y no tiene pulso",
        ),
        ("hace un minuto estaba bien", "ya viene alguien con el desfibrilador", "se está poniendo morad{o}"),
    ),
    "cpr-in-progress": _p(
        (
            "no respira, le estamos dando RCP ahorita",
            "no tiene pulso, le estoy haciendo compresiones en el pecho",
            "le estamos haciendo reanimación y todavía no respira",
            "no reacciona, el policía le está dando RCP",
        ),
        ("llevamos {n} minutos con las compresiones", "el desfibrilador dice que sigamos"),
    ),
    "not-breathing": _p(
        (
            "dejó de respirar",
            "está boqueando, casi no respira",
            "apenas respira y tiene los labios morados",
            "no respira bien, nada más jala aire de vez en cuando",
        ),
        ("se tomó algo, no sabemos qué", "se estaba ahogando con comida"),
    ),
    "unresponsive": _p(
        (
            "no responde",
            "no despierta, está inconsciente",
            "no reacciona a nada",
            "está en la cama y no responde, respira muy despacito",
            "nada más reacciona si l{o} pellizco",
        ),
        ("hay frascos de pastillas vacíos junto a {el}", "es diabétic{o}", "se pegó en la cabeza"),
    ),
    "choking": _p(
        (
            "se está ahogando, no puede respirar",
            "se atragantó con un pedazo de carne y no puede hablar",
            "tiene algo atorado en la garganta y se está poniendo azul",
        ),
        ("ya le di golpes en la espalda y no sale", "se está agarrando la garganta"),
    ),
    "severe-bleeding": _p(
        (
            "está sangrando muchísimo de la pierna y no para",
            "se cortó el brazo con una motosierra, hay sangre por todos lados",
            "le sale la sangre a chorros del muslo",
            "se cortó la mano con una máquina en el trabajo, se le desprendió",
        ),
        ("le estamos apretando con una toalla", "se ve muy pálid{o}"),
    ),
    "anaphylaxis": _p(
        (
            "comió cacahuate y se le está cerrando la garganta",
            "le picó una abeja y se le está hinchando la lengua, casi no puede respirar",
            "le dio una reacción alérgica muy fuerte y no puede respirar",
            "se le está cerrando la garganta después de una picadura",
        ),
        ("ya se puso la epipen", "tiene ronchas por todo el cuerpo"),
    ),
    "status-seizure": _p(
        (
            "sigue convulsionando, ya van diez minutos",
            "está convulsionando y no para",
            "la convulsión no se le quita y tiene los labios azules",
        ),
        ("tiene epilepsia", "es la primera vez que le pasa"),
    ),
    "drowning-hanging": _p(
        (
            "a {quien} l{o} sacamos de la alberca, se estaba ahogando",
            "a {quien} l{o} encontré colgad{o} en el garaje",
            "a {quien} l{o} agarró la corriente de un cable de luz",
        ),
        ("no se mueve",),
    ),
    "shock-trauma": _p(
        (
            "{quien} chocó y está atrapad{o} en el carro, no responde",
            "a {quien} le dispararon en el pecho y casi no respira",
            "{quien} se estrelló en la moto y no responde",
        ),
        ("se abrieron las bolsas de aire", "hay mucha sangre"),
    ),
    "child-struck-unresponsive": _p(
        (
            "a {quien} l{o} atropelló un carro y no despierta",
            "a {quien} l{o} atropellaron cuando iba en la bici y no responde",
            "a {quien} l{o} golpeó un carro y no me contesta",
        ),
        ("respira raro", "no traía casco"),
    ),
    "unresponsive-abnormal-breathing": _p(
        (
            "no despierta y respira raro",
            "está inconsciente y ronca muy fuerte",
            "no responde y hace como gárgaras cuando respira",
            "no despierta y está jalando aire como boqueando",
            "está desmayad{o} y hace ruidos raros al respirar",
        ),
        ("hace una hora estaba bien", "no puedo hacer que abra los ojos", "está muy pálid{o}"),
    ),
    "silent-choking": _p(
        (
            "se está ahogando y no puede hacer ningún ruido",
            "se está agarrando la garganta y no puede hablar ni toser",
            "se atragantó y no le sale nada, ni un sonido",
            "no puede toser ni hablar, se le está poniendo la cara morada",
        ),
        ("estaba cenando", "ya le pegué en la espalda"),
    ),
    "seizure-cyanotic": _p(
        (
            "le está dando una convulsión y se le están poniendo los labios azules",
            "está temblando todo y se ve azul",
            "le dio una convulsión y ahora está azul y no respira bien",
            "sigue convulsionando y la cara se le está poniendo morada",
        ),
        ("nunca le había dado una convulsión", "se mordió la lengua"),
    ),
    "barely-responsive": _p(
        (
            "está en el piso y casi no responde",
            "casi no responde, nada más se queja",
            "apenas abre los ojos cuando l{o} muevo y no habla",
            "apenas reacciona, l{o} encontré así",
        ),
        ("no sé cuánto tiempo lleva así", "vive sol{o}", "hay vómito junto a {el}"),
    ),
    "child-breathing-distress": _p(
        (
            "está haciendo mucho esfuerzo para respirar, se le hunden las costillas",
            "se queja con cada respiración, como pujando",
            "nada más puede decir una o dos palabras, no puede respirar",
            "se le marcan las costillas cada vez que respira y tiene los labios morados",
        ),
        ("tiene asma", "tiene gripa desde hace unos días", "el nebulizador no le está ayudando"),
    ),
    "hemorrhagic-shock": _p(
        (
            "perdió mucha sangre y ahora está frí{o} y sudad{o}",
            "se cortó feo y ahora está gris y sudando frío",
            "ha estado sangrando y se desmaya cuando se para",
            "está vomitando sangre y se marea al pararse",
        ),
        ("hay sangre por todo el piso", "tiene mucha sed"),
    ),
    # ESI 2
    "stroke": _p(
        (
            "tiene la cara caída de un lado y no puede hablar bien",
            "de repente no puede mover el brazo derecho y habla raro",
            "creo que le está dando un derrame, tiene el lado izquierdo débil",
            "se le durmió un lado del cuerpo y no le salen las palabras",
        ),
        ("empezó hace como media hora", "toma pastillas para la presión", "estaba bien hace una hora"),
    ),
    "chest-pain-acs": _p(
        (
            "tiene un dolor muy fuerte en el pecho que se le va al brazo izquierdo",
            "siente presión en el pecho y está sudando y con ganas de vomitar",
            "le duele el pecho y le falta el aire, ya le dio un infarto antes",
            "dice que siente como un peso en el pecho y está sudando frío",
        ),
        ("se tomó una aspirina", "le empezó mientras paleaba nieve"),
    ),
    "suicidal": _p(
        (
            "dice que se quiere matar",
            "dice que ya no quiere vivir",
            "se cortó las muñecas, ya casi no sangra",
            "está amenazando con quitarse la vida",
        ),
        ("ha estado tomando", "hay armas en la casa"),
    ),
    "si-with-plan": _p(
        (
            "dice que se va a tomar todas sus pastillas esta noche",
            "me dijo que tiene un plan para darse un tiro",
            "escribió una carta y dice que ya sabe cómo lo va a hacer",
            "dice que se quiere matar y tiene una pistola",
            "habla de matarse y ha estado juntando pastillas",
        ),
        ("ahorita está tranquil{o}", "tiene una pistola en la casa"),
    ),
    "overdose-awake": _p(
        (
            "se tomó un frasco entero de pastillas hace como una hora",
            "tuvo una sobredosis de heroína, le pusimos narcan y ya despertó",
            "se tomó todas las medicinas de su mamá",
        ),
        ("está muy adormilad{o}", "está vomitando"),
    ),
    "overdose-no-symptoms": _p(
        (
            "se tomó 40 pastillas de Tylenol hace una hora, dice que se siente bien",
            "se tomó un frasco de acetaminofén a propósito pero dice que está bien",
            "se tomó como 30 pastillas de la presión, todavía no tiene síntomas",
            "se tomó un puño de pastillas de hierro para hacerse daño, ahorita se ve bien",
        ),
        ("está tranquil{o} y hablando", "está caminando"),
    ),
    "respiratory-distress": _p(
        (
            "tiene un ataque de asma muy fuerte y solo puede decir unas palabras",
            "no puede respirar bien, el inhalador no le está ayudando",
            "le falta el aire y le silba mucho el pecho",
            "tiene EPOC y le falta muchísimo el aire",
        ),
        ("tiene los labios un poco morados", "está sentad{o} inclinad{o} hacia adelante"),
    ),
    "altered-mental-status": _p(
        (
            "está confundid{o} y no sabe dónde está",
            "ha estado muy adormilad{o} desde la mañana, casi no l{o} puedo despertar",
            "está desorientad{o} y no dice cosas con sentido, nunca había estado así",
            "se desmayó un momento y ahora está confundid{o}",
        ),
        ("tiene calentura", "es diabétic{o}"),
    ),
    "severe-pain": _p(
        (
            "tiene el peor dolor de cabeza de su vida, le dio de repente",
            "está gritando del dolor en el costado, dice que es un diez",
            "tiene un dolor de estómago horrible, no se puede estar quiet{o}",
            "tiene un dolor muy fuerte en la espalda, nueve de diez, y está pálid{o}",
        ),
        ("ya vomitó dos veces",),
    ),
    "penetrating-trauma": _p(
        (
            "a {quien} l{o} apuñalaron en el brazo, ya no sangra tanto",
            "a {quien} le dieron un balazo en la pierna, está despiert{o} y hablando",
            "{quien} se cayó del techo con todo y escalera y se lastimó la espalda",
            "a {quien} l{o} atropelló un carro pero está consciente",
        ),
        ("ya llegó la policía", "puede mover los dedos de los pies"),
    ),
    "pregnancy-emergency": _p(
        (
            "está embarazada y está sangrando",
            "ya va a nacer el bebé, ya se le ve la cabecita",
            "tiene 30 semanas de embarazo, le duele mucho la cabeza y ve borroso",
        ),
        ("se le rompió la fuente", "es su tercer bebé"),
    ),
    "pregnancy-bleeding": _p(
        (
            "tiene 8 semanas de embarazo y está sangrando con cólicos",
            "está embarazada y empezó a sangrar mucho",
            "tiene como 10 semanas de embarazo y está echando coágulos",
        ),
        ("le duele abajo del vientre", "es su primer embarazo"),
    ),
    "head-injury-anticoag": _p(
        (
            "se cayó y se pegó en la cabeza, toma anticoagulantes",
            "se pegó en la cabeza y perdió el conocimiento un minuto",
            "se golpeó la cabeza y ahora está vomitando",
        ),
        ("toma warfarina", "tiene un chichón en la frente"),
    ),
    "diabetic-emergency": _p(
        (
            "tiene el azúcar en 38 y está temblando y sudando",
            "es diabétic{o} y está actuando raro, tiene el azúcar muy bajita",
            "tiene el azúcar altísima, está vomitando y respirando muy rápido",
        ),
        ("se puso la insulina y no comió",),
    ),
    "danger-vitals": _p(
        (
            "se siente débil y maread{o}",
            "tiene calentura y tos desde hace tres días",
            "ha tenido diarrea todo el día y siente que se desmaya",
            "nada más se siente mal, muy cansad{o}",
        ),
        ("se ve muy mal", "no aguanta ni el agua"),
    ),
    "infant-fever": _p(
        (
            "tiene calentura de 38.4",
            "tiene dos semanas de nacid{o}, tiene calentura y no quiere comer",
            "tiene tres semanas y está muy calientit{o}, le salió 38.2",
        ),
        ("está muy dormid{o}",),
    ),
    "child-struck-lethargic": _p(
        (
            "a {quien} l{o} atropelló un carro y está muy adormilad{o}",
            "a {quien} l{o} golpeó un carro en el estacionamiento, está despiert{o} pero muy raro y con sueño",
            "a {quien} l{o} atropellaron y se sigue quedando dormid{o}",
        ),
        ("tiene un raspón en la cabeza", "lloró luego luego"),
    ),
    "sexual-assault": _p(
        (
            "a {quien} l{o} violaron anoche",
            "{quien} dice que l{o} violaron",
            "a {quien} l{o} atacaron y abusaron de {el}, no está muy lastimad{o}",
        ),
        ("está llorando", "ya le hablamos a la policía"),
    ),
    "testicular-pain": _p(
        (
            "tiene un dolor muy fuerte en un testículo, le empezó de repente",
            "le empezó a doler el testículo de repente hace una hora y está vomitando",
            "se despertó con un dolor fuerte en los testículos",
        ),
        ("no se golpeó",),
    ),
    "immunocompromised-fever": _p(
        (
            "está en quimioterapia y tiene calentura de 38.6",
            "tiene un trasplante de riñón y ahora tiene calentura y escalofríos",
            "tiene leucemia y le está dando fiebre",
            "toma medicinas contra el rechazo y tiene 101 de temperatura",
        ),
        ("la última quimio fue hace una semana", "tiene un puerto en el pecho"),
    ),
    # ESI 3
    "abdominal-pain": _p(
        (
            "tiene dolor de estómago y ha vomitado varias veces",
            "le duele la parte de abajo a la derecha de la panza desde anoche",
            "le duele el estómago y cada vez más, como un seis de diez",
            "le duele arriba del estómago después de comer y tiene náuseas",
        ),
        ("no hay sangre en el vómito", "tiene un poquito de calentura"),
    ),
    "fall-hip": _p(
        (
            "se cayó y no puede apoyar la cadera",
            "se resbaló en el baño y le duele mucho la cadera",
            "se cayó, le duele la cadera y la pierna se le ve más corta",
        ),
        ("no se pegó en la cabeza", "se acuerda de todo"),
    ),
    "pneumonia-like": _p(
        (
            "tiene calentura y tos con flema desde hace varios días",
            "tiene tos, calentura y escalofríos, le falta el aire cuando camina",
        ),
        ("está comiendo menos",),
    ),
    "dehydration": _p(
        ("tiene vómito y diarrea desde hace dos días", "no retiene nada desde ayer"),
        ("todavía está orinando",),
    ),
    "kidney-stone": _p(
        (
            "tiene dolor en el costado y sangre en la orina",
            "cree que es otra piedra en el riñón, el dolor es como un seis",
        ),
        ("tuvo una el año pasado",),
    ),
    "complex-laceration": _p(
        (
            "se cortó la mano con un vidrio y no puede doblar el dedo",
            "se hizo una cortada profunda en la pierna, ya no sangra si le aprieto",
        ),
        ("ya se le paró la sangre",),
    ),
    "mild-sob": _p(
        (
            "le falta un poco el aire cuando hace esfuerzo, con el inhalador se le quita",
            "tiene tos y le silba un poquito el pecho desde ayer",
        ),
        ("habla bien, en frases completas",),
    ),
    "deformed-limb": _p(
        (
            "se cayó de los juegos del parque y tiene el brazo chueco",
            "se cayó sobre la muñeca y se ve torcida",
            "cree que se zafó el hombro otra vez",
            "tiene el dedo volteado para otro lado después de agarrar una pelota",
        ),
        ("puede mover los dedos", "la mano está calientita y de buen color"),
    ),
    "cellulitis-diabetic": _p(
        (
            "es diabétic{o} y tiene la pierna roja, caliente e hinchada",
            "tiene una parte roja en el pie que se está extendiendo y tiene diabetes",
            "lo rojo de la pierna se está haciendo más grande, es diabétic{o}",
        ),
        ("lleva dos días con pastillas de antibiótico",),
    ),
    "elderly-weakness": _p(
        (
            "ha estado más débil de lo normal estos días y come menos",
            "está más cansad{o} y necesita ayuda para caminar, nada más",
            "la familia dice que nomás está débil y cansad{o} esta semana",
        ),
        ("habla normal", "sabe dónde está"),
    ),
    "pyelonephritis": _p(
        (
            "le arde al orinar, le duele la espalda y tiene calentura",
            "tiene infección de orina desde hace días y ahora tiene calentura y dolor en el costado",
        ),
        ("vomitó una vez",),
    ),
    "migraine": _p(
        (
            "tiene una de sus migrañas de siempre, ya lleva un día y las pastillas no le hicieron nada",
            "tiene migraña como las de siempre, con vómito",
        ),
        ("le molesta la luz",),
    ),
    # ESI 4
    "ankle-injury": _p(
        (
            "se torció el tobillo jugando fútbol",
            "se dobló el tobillo en las escaleras y está hinchado",
            "se lastimó la muñeca cuando se cayó de la bici",
            "se machucó el dedo y está hinchado",
        ),
        ("puede caminar un poquito", "no tiene otras heridas"),
    ),
    "simple-laceration": _p(
        (
            "se cortó el dedo cocinando, a lo mejor necesita puntadas",
            "tiene una cortadita en la barbilla de una caída, ya no sangra",
        ),
        ("la herida es como de dos centímetros",),
    ),
    "urinary": _p(
        ("le arde al orinar desde hace dos días", "cree que tiene infección de orina"),
        ("no tiene calentura",),
    ),
    "eye-foreign-body": _p(
        ("le entró algo en el ojo en el trabajo", "tiene el ojo rojo e irritado después de estar esmerilando metal"),
        ("ve bien",),
    ),
    "ear-nose-foreign-body": _p(
        (
            "se metió una cuenta en el oído",
            "se metió algo en la nariz y no se lo podemos sacar",
            "tiene un bicho en el oído",
        ),
        ("respira bien", "está jugando normal"),
    ),
    "dental-abscess": _p(
        (
            "tiene dolor de muela y la encía hinchada con una bolita",
            "le duele el diente y tiene una bolsita de pus al lado",
        ),
        ("puede abrir bien la boca", "no tiene la cara ni el cuello hinchados"),
    ),
    "skin-abscess": _p(
        ("tiene un grano doloroso debajo del brazo que está creciendo", "tiene un absceso en la pierna"),
        ("no tiene calentura",),
    ),
    "back-strain": _p(
        (
            "se lastimó la espalda cargando una caja, le duele pero puede caminar",
            "le duele la parte baja de la espalda desde que movió muebles ayer",
        ),
        ("no se le duermen las piernas",),
    ),
    "fainted-sight-of-blood": _p(
        (
            "se desmayó cuando vio sangre, ya está bien y normal",
            "se desmayó unos segundos cuando le sacaron sangre, ya está despiert{o} y hablando",
        ),
        ("no se pegó en la cabeza", "ya le ha pasado antes cuando ve sangre"),
    ),
    "minor-injury-family-history": _p(
        (
            "se torció el tobillo, su papá tuvo un infarto y por eso está nervios{o}",
            "a su papá le dio un infarto el año pasado, hoy se torció el tobillo y está hinchado",
            "su mamá tuvo un derrame el año pasado pero hoy nada más se lastimó la muñeca",
        ),
        ("puede caminar un poco",),
    ),
    # ESI 5
    "refill": _p(
        (
            "se le acabó la medicina de la presión y necesita que se la vuelvan a recetar",
            "necesita receta para su inhalador",
        ),
        ("fuera de eso se siente bien",),
    ),
    "cold-symptoms": _p(
        ("tiene mocos y un poquito de tos desde hace unos días", "tiene síntomas de gripa y quiere un consejo"),
        ("está comiendo y tomando normal",),
    ),
    "minor-rash-bite": _p(
        (
            "tiene un sarpullido chiquito en el brazo que le da comezón",
            "le picó un bicho y está un poquito rojo",
            "le picó un mosco y le da comezón",
        ),
        ("no está hinchado",),
    ),
    "suture-removal": _p(
        (
            "necesita que le quiten los puntos de la mano",
            "necesita que le revisen la herida de la semana pasada",
            "necesita que le cambien la venda",
        ),
        ("no está roja ni le sale nada",),
    ),
    "work-note": _p(
        ("necesita una nota para el trabajo porque estuvo enferm{o}", "necesita una constancia médica para la escuela"),
        ("ya se siente mejor",),
    ),
    "sore-throat": _p(
        ("le duele un poco la garganta", "tiene la garganta rasposa desde hace dos días, toma líquidos bien"),
        ("fuera de eso está san{o}",),
    ),
    "ear-pain": _p(
        ("le duele el oído desde ayer", "se está jalando la oreja a cada rato"),
        ("toma líquidos bien",),
    ),
    "pink-eye": _p(("tiene el ojo rojo y con lagañas en la mañana", "tiene conjuntivitis"), ("ve bien",)),
    "poison-ivy": _p(
        (
            "tiene un sarpullido con ampollitas que le da mucha comezón después de quitar hierbas",
            "cree que le tocó hiedra venenosa",
        ),
        ("no tiene problema para tragar",),
    ),
    "minor-burn": _p(
        ("se quemó el dedo con la estufa, tiene una ampollita", "tocó un sartén caliente y tiene la mano un poco roja"),
        ("ya le pusimos agua fría",),
    ),
    "question": _p(
        (
            "tiene una pregunta sobre la dosis de su medicina",
            "se pegó en la rodilla ayer y tiene un moretoncito",
            "tiene un dolorcito de muela desde la semana pasada",
        ),
        ("camina normal",),
    ),
    "choked-resolved": _p(
        (
            "se atragantó con comida pero la tosió y ya está hablando normal",
            "se estaba ahogando un momento pero ya lo sacó y está bien",
            "se atoró con un dulce, ya salió y está llorando y respirando bien",
        ),
        ("ya está comiendo otra vez", "nada más queremos saber si hay que revisarl{o}"),
    ),
    "nosebleed-stopped": _p(
        (
            "le sangró la nariz pero ya paró después de apretarle la nariz",
            "le estuvo sangrando la nariz como diez minutos, ya se le quitó",
        ),
        ("se siente bien", "le pasa cuando el aire está seco"),
    ),
    "admin-question": _p(
        (
            "quiere inscribirse en una clase de RCP",
            "necesita cambiar su cita con el cardiólogo",
            "pregunta qué hacer si a alguien le da una convulsión",
            "quiere el número que no es de emergencia",
            "pregunta qué hacer si alguien se está ahogando",
        ),
        ("no es una emergencia", "nadie está lastimado"),
    ),
    "history-refill": _p(
        (
            "tuvo un derrame hace años y necesita que le surtan su receta",
            "le dio un infarto hace cinco años, nada más necesita más pastillas",
            "tuvo convulsiones hace mucho y ayer se le acabó la medicina",
        ),
        ("ahorita se siente bien",),
    ),
    "bp-reading-no-symptoms": _p(
        (
            "la presión le salió un poco alta en la farmacia, 150 sobre 92, pero se siente bien",
            "se tomó la presión en la casa y salió 148 sobre 90, no tiene ningún síntoma",
            "la máquina de la tienda dice que tiene la presión alta, no le duele la cabeza ni el pecho",
        ),
        ("no toma medicina para la presión",),
    ),
    "small-scrape": _p(
        (
            "se raspó la rodilla en la banqueta, sangró un poquito y ya paró",
            "se cayó de la patineta y tiene un raspón en el codo",
            "tiene un raspón chiquito en la mano",
        ),
        ("ya lo lavamos con agua y jabón",),
    ),
    "stubbed-toe": _p(
        (
            "se pegó en el dedo del pie hace una hora y todavía le duele un poco",
            "se dio con el marco de la puerta en el dedo del pie, le duele un poquito pero camina bien",
        ),
        ("el dedo no se ve chueco",),
    ),
}
"""Spanish phrasings for every scenario of the generator, by scenario name."""


NEGATED: dict[str, str] = {
    "denies chest pain": "no le duele el pecho",
    "no trouble breathing": "respira bien",
    "not bleeding": "no está sangrando",
    "no loss of consciousness": "no se desmayó",
    "breathing normally": "respira normal",
    "alert and talking": "está despiert{o} y hablando",
    "no fever": "no tiene calentura",
    "denies shortness of breath": "no le falta el aire",
    "no allergies": "no es alérgic{o} a nada",
    "not confused": "no está confundid{o}",
    "no head injury": "no se pegó en la cabeza",
    "not pregnant": "no está embarazada",
}
"""The generator's negated distractors (findings that say nothing about the level) as a Spanish caller says them."""


@dataclass(frozen=True, slots=True)
class Persona:
    """The patient as a Spanish-speaking caller names them, by gender."""

    female: bool

    def fill(self, template: str, quien: str, n: int) -> str:
        """A template with the gender placeholders and the patient's noun phrase filled in."""
        filled = template.format(
            o="a" if self.female else "o", el="ella" if self.female else "él", lo="la" if self.female else "lo",
            quien=quien, n=n,
        )  # fmt: skip
        return re.sub(r"\b(a|de) el\b", lambda match: "al" if match.group(1) == "a" else "del", filled)


ADULTS = {
    False: ("mi esposo", "mi papá", "mi hijo", "mi hermano", "mi vecino", "un señor", "mi abuelo", "un muchacho"),
    True: ("mi esposa", "mi mamá", "mi hija", "mi hermana", "mi vecina", "una señora", "mi abuela", "una muchacha"),
}
CHILDREN = {
    False: ("mi hijo", "mi niño", "mi nieto", "el niño de mi vecina", "mi chamaco"),
    True: ("mi hija", "mi niña", "mi nieta", "la niña de mi vecina", "mi chamaca"),
}
NEWBORNS = {
    False: ("mi bebé", "mi niño recién nacido", "el bebé"),
    True: ("mi bebé", "mi niña recién nacida", "la bebé"),
}
GREETINGS = ("", "", "Bueno, ", "Sí, bueno, ", "Hola, ", "Oiga, ", "Disculpe, ")
URGENT = ("¡Por favor ayúdeme!", "Necesito una ambulancia.", "¡Ayúdenme por favor!", "Manden a alguien rápido.")
CALM = ("No sé si es una emergencia.", "¿Qué hago?", "No es nada grave creo.", "¿L{o} llevo a la clínica?")
FILLERS = ("este", "eh", "o sea", "pues", "mire", "ay", "bueno")
STRANGERS = {
    False: ("un señor", "un muchacho", "un hombre", "un viejito"),
    True: ("una señora", "una muchacha", "una mujer", "una viejita"),
}
PLACES = (
    "en la banqueta",
    "en la parada del camión",
    "afuera de la tienda",
    "en el estacionamiento",
    "en la calle",
    "en el parque",
    "en la gasolinera",
)


def _quien(persona: Persona, age: int, rng: random.Random) -> str:
    """Who the patient is to the caller: nobody's 20-year-old mother, nor 80-year-old son."""
    if age == 0:
        return rng.choice(NEWBORNS[persona.female])
    if age < 16:
        return rng.choice(CHILDREN[persona.female])
    unlikely = {"mi papá", "mi mamá", "mi abuelo", "mi abuela"} if age < 40 else set()
    unlikely |= {"mi hijo", "mi hija", "un muchacho", "una muchacha"} if age > 60 else set()
    return rng.choice([noun for noun in ADULTS[persona.female] if noun not in unlikely])


def _vitals_es(vitals: Mapping[str, float], abnormal: set[str], rng: random.Random) -> str:
    """Readings as a caller reads them off a home monitor, the abnormal ones always."""
    wording = {
        "hr": f"el pulso en {vitals['hr']}",
        "sbp": f"la presión en {vitals['sbp']} sobre {vitals['dbp']}",
        "spo2": f"la oxigenación en {vitals['spo2']}",
        "temp": f"la temperatura en {vitals['temp']}",
        "rr": f"respira {vitals['rr']} veces por minuto",
    }
    shown = sorted(abnormal) or [rng.choice(("hr", "sbp", "spo2"))]
    return "El aparato marca " + " y ".join(wording[name] for name in shown) + "."


def _sentence(text: str) -> str:
    first = 1 if text[0] in "¿¡" else 0
    text = text[:first] + text[first].upper() + text[first + 1 :]
    return text if text[-1] in ".!?" else text + "."


def _stranger(female: bool, age: int, rng: random.Random) -> str:
    """A passer-by's words for an adult they do not know: nobody calls a 25-year-old "un viejito"."""
    unlikely = ("un viejito", "una viejita") if age < 60 else ("un muchacho", "una muchacha") if age > 40 else ()
    return rng.choice([noun for noun in STRANGERS[female] if noun not in unlikely])


def _complaint(template: str, persona: Persona, quien: str, n: int, stranger: str | None, rng: random.Random) -> str:
    """The first sentence: the patient named by the caller, or a stranger seen somewhere ("hay un señor ... que")."""
    if stranger is not None and "{quien}" not in template:
        return f"hay {stranger} {rng.choice(PLACES)} que " + persona.fill(template, quien, n)
    if "{quien}" not in template:  # "a mi hijo le duele", "a mi esposa se le cierra": the dative, mostly
        dative = template.startswith(("le ", "se le ")) and rng.random() < 0.7
        template = ("a {quien} " if dative else "{quien} ") + template
    return persona.fill(template, quien, n)


def spanish_call(
    scenario: str, level: int, female: bool, age: int, vitals: tuple[Mapping[str, float], set[str]] | None,
    rng: random.Random, witnessed: bool = False, negated: tuple[str, ...] = (),
) -> str:  # fmt: skip
    """A Spanish caller's words: who, the complaint, the age, details, readings; half typed as heard. `witnessed`:
    a passer-by could see it, and a quarter of those calls are from one ("hay una señora en la parada que ...").
    `negated`: distractors (keys of NEGATED) the caller adds."""
    phrasing, persona, n = SPANISH[scenario], Persona(female), rng.randint(2, 5)
    stranger = _stranger(female, age, rng) if witnessed and age >= 16 and rng.random() < 0.25 else None
    quien = stranger or _quien(persona, age, rng)
    sentences = [rng.choice(GREETINGS) + _complaint(rng.choice(phrasing.complaints), persona, quien, n, stranger, rng)]
    if stranger is not None:
        sentences.append(rng.choice(("no l{o} conozco", "se ve de unos {decade} años", "yo nada más iba pasando")))
    elif age > 0 and rng.random() < 0.6:
        sentences.append(f"tiene {age} años")
    sentences += [detail for detail in phrasing.details if rng.random() < (0.15 if stranger else 0.4)]
    sentences += [NEGATED[distractor] for distractor in negated]
    if vitals is not None and stranger is None:
        sentences.append(_vitals_es(*vitals, rng))
    if rng.random() < 0.5:
        sentences.append(rng.choice(URGENT if level <= 2 else CALM))
    decade = max(20, round(age, -1))
    text = " ".join(
        _sentence(persona.fill(sentence.replace("{decade}", str(decade)), quien, n)) for sentence in sentences
    )
    return as_transcribed(text, rng) if rng.random() < 0.5 else text


def _drop_accent(word: str) -> str:
    """Without the accents a hurried typist leaves out (the ñ stays)."""
    decomposed = unicodedata.normalize("NFD", word.replace("ñ", "\0"))
    return "".join(ch for ch in decomposed if unicodedata.category(ch) != "Mn").replace("\0", "ñ")


def as_transcribed(text: str, rng: random.Random) -> str:
    """Spanish as a call-taker types it while listening: lower case, no punctuation, accents often dropped, fillers."""
    text = re.sub(r"(\d)\.(\d)", r"\1 punto \2", text.lower())
    words = re.sub(r"[^\w\s]", " ", text).split()
    words = [_drop_accent(word) if rng.random() < 0.7 else word for word in words]
    for _ in range(rng.randint(1, 3)):
        words.insert(rng.randrange(len(words) + 1), rng.choice(FILLERS))
    if rng.random() < 0.4:  # a restart: "mi mi esposo"
        index = rng.randrange(len(words))
        words.insert(index, words[index])
    return " ".join(words)
