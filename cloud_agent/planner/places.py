"""Places a weather or clock request names that the gazetteer does not know.

Weather and the world clock answer for every city of the gazetteer (``understanding.gazetteer``:
GeoNames' cities of 15,000 people or more); this module is only the planner's reading of
where a request puts a place, and all it knows of places it asks the gazetteer (names,
misspellings, countries and regions, suggestions). A place outside the gazetteer
("weather in Narnia and Rome") must not vanish from the plan, nor be answered as a
question for an LLM: the planner declines the request and says which place it does not
know (``metadata.refusal = "unknown_place"``).

A place is looked for where a request puts one: after "in", "for" or "at" ("the time in
Oslo"), beside "than", "or", "between" ("is Oslo warmer than Rome"), before the word for
the reading ("the Oslo forecast"), in a fragment that lists one more place ("weather in
Berlin | and Oslo"), right after a known city with nothing between ("weather in Paris
Oslo", "Paris Moscow Idaho": a list written without its commas; lower-case only where a
listed city would stand, last or before a city, a day or a reading), and, in a weather or
clock clause that names no known city, in a word written with a capital. What the query
says in those places is not a place when it is a word the planner reads otherwise (a day,
a room, a device, a unit, a weather or clock word) or an everyday word ("in general", "at
home", "for running"). A misspelt known city
("Pariss", "Tokio") resolves through the gazetteer's fuzzy lookup first, so it is never
taken for an unknown place.

    >>> from cloud_agent.planner.interpret import read_clause
    >>> q = "weather in narnia"
    >>> [p.title for p in unknown_places(q, [read_clause(q)])]
    ['Narnia']
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from cloud_agent.planner import interpret as it
from understanding.gazetteer import (
    PLACE_WORDS,
    cities,
    find_cities,
    is_everyday_name,
    is_region,
    suggest_city,
)
from understanding.gazetteer import resolve_city as _resolve_city

UNKNOWN_PLACE = "unknown_place"


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_NEEDS_CITY = (it.WEATHER, it.CLOCK)

# Everyday words that follow "in", "for", "at", "than" or "or" in a weather or clock
# request, or make up a fragment beside one, without naming a place.
_EVERYDAY = _words("""
    a an the my your our his her their its this that these those there here where which what
    who whom whose how when why it me us you them him one ones some any every each all both
    either neither other another such same few many much more most less least several
    i we he she they myself yourself ourselves is are was were be been being am do does did
    have has had will would shall should can could may might must not no yes yeah yep nope
    nah naw nay
    further furthest farther farthest along ahead behind apart
    ok okay and or but if so then than too also very just only really quite still even again
    now today tomorrow tonight yesterday currently later soon earlier early late before after
    day days week weeks weekend weekends month months year years hour hours minute minutes
    second seconds moment moments while time times date dates
    morning mornings afternoon afternoons evening evenings night nights noon midnight
    daytime nighttime sunrise sunset dawn dusk lunch lunchtime dinner dinnertime breakfast
    brunch supper bedtime bed
    monday tuesday wednesday thursday friday saturday sunday weekday weekdays
    january february march april may june july august september october november december
    spring summer autumn fall winter season seasons christmas easter halloween thanksgiving
    holiday holidays vacation trip journey travel flight commute
    next last past coming upcoming following previous current local usual normal average
    general total advance case fact order short detail details particular least last first
    second third fourth fifth half quarter once twice
    home house work office school college university class gym park beach pool garden
    yard outside outdoors inside indoors upstairs downstairs here there around nearby
    city cities town towns place places area region country countries world earth planet
    state province county capital downtown uptown centre center suburb suburbs village
    north south east west northern southern eastern western central
    weather forecast forecasts temperature temperatures temp degrees degree climate
    conditions condition outlook reading readings report
    celsius fahrenheit kelvin centigrade metric imperial
    rain rainy raining snow snowy snowing sun sunny sunshine cloud clouds cloudy fog foggy
    wind windy storm storms stormy hail thunder lightning shine shower showers drizzle
    heat cold hot warm cool mild humid dry wet chilly freezing nice bad good great fine
    warmer colder hotter cooler nicer better worse
    clock timezone timezones zone zones utc gmt est edt pst pdt cst cdt mst mdt cet cest
    bst ist jst kst aest aedt
    running walking jogging cycling biking hiking skiing swimming surfing sailing driving
    walk walks run runs ride rides hike picnic bbq barbecue laundry shopping errands
    umbrella jacket coat sunscreen shorts sunglasses boots layers
    please pls thanks thank cheers sorry mate dude buddy bro man guys folks friend sir
    madam mom mum dad quick quickly asap fast again instead either way
    english french spanish german italian chinese japanese
    sure real long ever once all least most best worst
    bit lot lots little couple
    me mine yours ours theirs
    hello hi hey yo
    on off up down out over under about into onto with without from by of to per via near
    off away back across along behind ahead inside between among
    anything something nothing everything anywhere somewhere everywhere nowhere anyone
    someone everyone nobody somebody everybody else
    zero one two three four five six seven eight nine ten eleven twelve hundred thousand
    pollen surf marine sweater ski uv air quality allergy extended weekly hourly daily
    beach football tennis golf baseball soccer game match concert party wedding event
    tea coffee screen free spare full part real quality whatever thereabouts ice fridge
    siri alexa google cortana bixby assistant computer robot
    for in at as elsewhere abroad overseas otherwise traffic transit public private line
    hospital church bloom style jeans sea level ground altitude elevation shade
    check tell show get give see look find know want need like say let make take bring
    wear pack go going come leave stay visit head heading fly flying
    further farther addition instance example person theory practice reality terms
    comparison contrast response return progress random row
    yet already anyway anyways though tho although however together maybe perhaps probably
    possibly actually basically literally exactly approximately roughly apparently hopefully
    lol btw fyi imo tbh thx tysm plz hmm umm
    """)

# Words that may follow a listed place ("weather in paris oslo and rome", "... oslo too").
_LIST_NEXT = _words("and or vs versus than plus too also as please pls now right currently")

# Words that start a city's name but name nothing alone ("new" in "new year's eve").
_NAME_STARTS = _words(
    "new san santa los las el la le st saint port fort mount lake cape north south east "
    "west upper lower old great little"
)
# Words that end a name after its first word ("Cape Town", "Salt Lake City").
_NAME_ENDS = _words(
    "town city bay beach springs falls island islands valley heights hills park harbour "
    "harbor point"
)
# Words inside a name ("Rio de Janeiro", "Frankfurt am Main").
_NAME_INNER = _words("de da del do dos di du am upon la le el von van")

_PREPOSITION = re.compile(r"\b(?:in|for|at)\s+(?:(?:the\s+)?(?:city|town)\s+of\s+)?")
_BESIDE = re.compile(r"\b(?:than|or|versus|between|compared\s+(?:to|with))\s+(?:in\s+)?")
# The reading a place's name can stand before ("the Oslo forecast", "oslo weather").
_READING = re.compile(r"\b(?:weather|forecast|local\s+time)\b")
_READING_LEAD = _words("and or so ok also the what is how check get give me tell show")
_IS_PLACE_LIKE = re.compile(
    r"\b(?:is|in)\s+([a-z][\w'.-]*(?:\s+[a-z][\w'.-]*){0,2})\s+"
    r"(?:warmer|colder|hotter|cooler|sunnier|wetter|drier|ahead|behind|sunny|rainy|snowy|"
    r"cloudy|windy|foggy|raining|snowing|cold|hot|warm|chilly|freezing)\b"
)
_HOW_IS = re.compile(
    r"\bhow\s+(?:cold|hot|warm|chilly|cool|wet|late|early|sunny|rainy)\s+is\s+(?!it\b)"
    r"([a-z][\w'.-]*(?:\s+[a-z][\w'.-]*){0,2})"
)
_OTHER_PREPOSITIONS = _words(
    "on near around over from of to across outside inside throughout within"
)
_FRAGMENT_LEAD = _words("and or but also plus then what how about same for in at with maybe")
_FRAGMENT_TAIL = _words(
    "today tomorrow tonight now too also then as well please pls right currently"
)


class _Regions:
    """``name in _REGIONS``: a country or region the gazetteer knows ("Tokyo, Japan": the
    country says which Tokyo; it is no request of its own)."""

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and is_region(name)


_REGIONS = _Regions()


@lru_cache(maxsize=8192)
def resolve_city(name: str) -> str | None:
    """The gazetteer's lookup (exact, alias, close misspelling), cached."""
    return _resolve_city(name)


@lru_cache(maxsize=8192)
def _names_a_city(text: str) -> bool:
    return bool(find_cities(text)) or resolve_city(text) is not None


_WORD = re.compile(r"^[a-z\u00c0-\u024f][a-z\u00c0-\u024f'.-]*$")


@dataclass(frozen=True)
class UnknownPlace:
    """A place a request names that no tool knows, and the tool the request wanted;
    ``written``: a known city's name in another region, as the query wrote it ("Paris,
    Texas")."""

    name: str
    tool: str
    written: str = ""

    @property
    def title(self) -> str:
        """The place as people write it ("New Orleans")."""
        if self.written:
            return self.written
        words = self.name.split()
        return " ".join(
            w if i and w in _NAME_INNER else w[:1].upper() + w[1:] for i, w in enumerate(words)
        )


def bare_word(word: str) -> str:
    """``word`` without the punctuation and possessive around it ("Oslo's," -> "Oslo")."""
    word = word.strip(' ,;:!?"()')
    word = re.sub(r"'s$|'$", "", word)
    return word.strip(".'")


def _is_name_word(word: str, capitalised: frozenset[str]) -> bool:
    """Whether ``word`` could be (part of) a place's name."""
    if len(word) < 3 or not _WORD.match(word) or word in _EVERYDAY:
        return False
    if word.endswith("s") and (
        word[:-1] in _EVERYDAY or (word.endswith("es") and word[:-2] in _EVERYDAY)
    ):
        return False  # "flights", "beaches"
    if it.is_unit_word(word) or it.find_room(word) or it.find_device(word):
        return False
    if it.find_days(word) or it.is_reading_word(word):
        return False
    # Gerunds, adverbs and participles are rarely places unless written as names.
    return word in capitalised or not re.search(r"(?:ing|ly|ed)$", word)


def _known_mask(words: list[str]) -> list[bool]:
    """Which words belong to a known city ("mexico city", "nyc", "pariss")."""
    bare = [bare_word(w) for w in words]
    mask = [False] * len(words)
    for i in range(len(words)):
        placed = i > 0 and bare[i - 1].lower() in PLACE_WORDS
        for width in (3, 2, 1):
            chunk = " ".join(bare[i : i + width])
            if i + width > len(words) or (is_everyday_name(chunk) and not placed):
                continue  # "time", "nice": words, unless where a place stands
            if resolve_city(chunk):
                mask[i : i + width] = [True] * width
                break
    return mask


def _ends_a_list_item(words: list[str], index: int, known: list[bool]) -> bool:
    """Whether a name ending before ``words[index]`` stands where a listed city would: at
    the clause's end, before a comma, a known city, a day, a reading or another list."""
    if index >= len(words) or words[index - 1].endswith((",", ";")):
        return True
    word = bare_word(words[index])
    return (
        known[index]
        or word in _LIST_NEXT
        or bool(it.find_days(word))
        or it.is_reading_word(word)
        or bool(_READING.match(word))
    )


def _after_known(known: list[bool]) -> list[int]:
    """Where each run of known cities' words ends, when a word follows it."""
    return [i for i in range(1, len(known)) if known[i - 1] and not known[i]]


def _phrase_after(words: list[str], start: int, capitalised: frozenset[str]) -> list[str]:
    """The name that starts at ``words[start]`` (up to three words), else []."""
    known = _known_mask(words)
    out: list[str] = []
    i = start
    while i < len(words) and len(out) < 3:
        word = bare_word(words[i])
        if known[i]:
            break  # a known city ends the name ("rio de janeiro | paris")
        starts = not out and word in _NAME_STARTS and i + 1 < len(words)
        inner = (
            bool(out)
            and word in _NAME_INNER
            and i + 1 < len(words)
            and _is_name_word(bare_word(words[i + 1]), capitalised)
        )
        if _is_name_word(word, capitalised) or (out and word in _NAME_ENDS) or inner or starts:
            out.append(word)
        else:
            break
        if words[i].endswith((",", "'s")):
            break
        i += 1
    while out and (out[-1] in _NAME_STARTS or out[-1] in _NAME_INNER):
        out.pop()
    return out


def _phrase_before(words: list[str], end: int, capitalised: frozenset[str]) -> list[str]:
    """The name that ends at ``words[end - 1]`` (up to three words), else []."""
    known = _known_mask(words)
    out: list[str] = []
    i = end - 1
    while i >= 0 and len(out) < 3:
        word = bare_word(words[i])
        if known[i]:
            break
        if (
            _is_name_word(word, capitalised)
            or (out and (word in _NAME_STARTS or word in _NAME_INNER))
            or (
                not out and word in _NAME_ENDS and i > 0 and bare_word(words[i - 1]) in _NAME_STARTS
            )
        ):
            out.insert(0, word)
        else:
            break
        i -= 1
    while out and (out[0] in _NAME_INNER or (out[0] in _NAME_STARTS and len(out) == 1)):
        out.pop(0)
    return out


def _is_unknown(phrase: list[str]) -> bool:
    """A phrase that names no known city, not even misspelt, and is more than a name's start."""
    if not phrase or all(w in _NAME_STARTS or w in _NAME_INNER for w in phrase):
        return False
    return not _names_a_city(" ".join(phrase))


def _word_index(text: str, offset: int) -> int:
    return len(text[:offset].split())


def _clause_candidates(
    clause: it.Clause, capitalised: frozenset[str], any_known: bool = False
) -> list[str]:
    """The unknown places a weather or clock clause names (``any_known``: the query names
    a known city somewhere)."""
    text = clause.text
    words = text.split()
    known = _known_mask(words)
    found: list[str] = []
    ends: set[int] = set()  # where the names found so far end (word index after them)
    for pattern in (_PREPOSITION, _BESIDE):
        for match in pattern.finditer(text):
            start = _word_index(text, match.end())
            phrase = _phrase_after(words, start, capitalised)
            if not _is_unknown(phrase):
                continue
            if pattern is _PREPOSITION and _word_index(text, match.start()) in ends:
                continue  # "in oslo in norway": the second place says where the first is
            ends.add(start + len(phrase))
            if not any(w in capitalised for w in phrase) and pattern is _PREPOSITION:
                # Said lower-case once a known city is named, "for" and "at" say what for
                # ("weather in Rome for golf") and a second "in" says how or where within
                # ("the weather in Paris in traffic"): not another place.
                if match.group(0).startswith(("for", "at")) and any_known:
                    continue
                if any(known[:start]):
                    continue
            if clause.cities and " ".join(phrase) in _REGIONS:
                continue  # "the weather in Paris in France"
            found.append(" ".join(phrase))
    for end in _after_known(known):
        # A place written right after a known city, with nothing between ("weather in Paris
        # Oslo", "Paris Moscow Idaho"): a list without its separators, never the city's own
        # qualifier (those are read first). Said lower-case, a name counts where a city of
        # the list would stand: last, or before a city, a day or a reading ("weather in
        # paris oslo tomorrow"); everyday words never do ("in paris tomorrow", "yet").
        phrase = _phrase_after(words, end, capitalised)
        name = " ".join(phrase)
        if end in ends or not _is_unknown(phrase) or name in found or name in _REGIONS:
            continue
        after = end + len(phrase)
        if not any(w in capitalised for w in phrase) and not _ends_a_list_item(words, after, known):
            continue  # "weather in rome together with...": words about the request
        ends.add(after)
        found.append(name)
    for match in _BESIDE.finditer(text):
        if not match.group(0).startswith(("than", "or", "versus")):
            continue
        phrase = _phrase_before(words, _word_index(text, match.start()), capitalised)
        if _is_unknown(phrase):
            found.append(" ".join(phrase))
    for match in _READING.finditer(text):
        end = _word_index(text, match.start())
        phrase = _phrase_before(words, end, capitalised)
        lead = [bare_word(w) for w in words[: end - len(phrase)]]
        named = any(w in capitalised for w in phrase) or (
            not any_known and all(w in _READING_LEAD for w in lead)
        )
        if named and _is_unknown(phrase):
            found.append(" ".join(phrase))
    for pattern in (_IS_PLACE_LIKE, _HOW_IS):
        for match in pattern.finditer(text):
            start = _word_index(text, match.start(1))
            phrase = _phrase_after(words, start, capitalised)
            exact = pattern is _HOW_IS or len(phrase) == len(match.group(1).split())
            if exact and _is_unknown(phrase):
                found.append(" ".join(phrase))
    if not found and not clause.cities:
        # A name written with a capital after another preposition ("on Mars", "near Oslo",
        # "going to Bergen") in a weather or clock clause that names no known city.
        for index, word in enumerate(words):
            if bare_word(word) in capitalised and index and words[index - 1] in _OTHER_PREPOSITIONS:
                phrase = _phrase_after(words, index, capitalised)
                if _is_unknown(phrase) and " ".join(phrase) not in found:
                    found.append(" ".join(phrase))
    return found


def _fragment_candidate(
    clause: it.Clause,
    previous: it.Clause | None,
    listed: bool,
    capitalised: frozenset[str],
) -> str | None:
    """The one unknown place a fragment lists ("| and Oslo", "| what about oslo tomorrow");
    ``listed``: the clause before named a place, known or not."""
    if clause.device or clause.room or clause.value is not None or clause.cities:
        return None
    words = [bare_word(w) for w in clause.text.split()]
    lead = 0
    while lead < len(words) and words[lead] in _FRAGMENT_LEAD:
        lead += 1
    tail = len(words)
    while tail > lead and words[tail - 1] in _FRAGMENT_TAIL:
        tail -= 1
    core = words[lead:tail]
    phrase = _phrase_after(core, 0, capitalised)
    if not core or len(phrase) != len(core) or not _is_unknown(phrase):
        return None
    name = " ".join(phrase)
    if (
        previous is not None
        and name in _REGIONS
        and lead == 0
        and previous.text
        and resolve_city(bare_word(previous.text.split()[-1]))
    ):
        return None  # "Tokyo, Japan": the country says which Tokyo
    follows_a_request = previous is not None and previous.tool in _NEEDS_CITY
    if listed or (lead > 0 and follows_a_request) or any(w in capitalised for w in phrase):
        return name
    return None


def capitalised_words(query: str) -> frozenset[str]:
    """Words written with a capital inside a sentence (not its first word, not "I")."""
    out = set()
    for match in re.finditer(r"(^|[.!?]\s+|\S\s+)([A-Z][\w'\u00c0-\u024f.-]*)", query):
        if match.group(1) == "" or re.match(r"[.!?]", match.group(1)):
            continue
        word = bare_word(match.group(2).lower())
        if word not in ("i", "i'm", "i'll", "i'd", "i've"):
            out.add(word)
    return frozenset(out)


# Words of a slot value that point at a place rather than name one ("that city", "both").
_POINTERS = frozenset((
    "here", "there", "home", "outside", "local", "that", "this", "both", "each", "all",
    "them", "it", "same", "those", "these", "either", "which", "where", "my", "our", "your",
))  # fmt: skip


def tagged_unknown(requests: Sequence[Any], known: list[UnknownPlace]) -> list[UnknownPlace]:
    """The places the device's tagger marked in weather or clock requests (``place_name``)
    that no gazetteer knows, beside those the words showed (``known``): "gotham city
    weather" names Gotham City, whatever the words around it, and is no request for the
    home's weather."""
    found = list(known)
    names = {p.name.lower() for p in found}
    for request in requests:
        if request.tool not in _NEEDS_CITY:
            continue
        for slot in request.slots:
            value = " ".join(str(slot.value).lower().split())
            if slot.type != "place_name" or _POINTERS & set(value.split()) or value in names:
                continue
            if _qualifies_a_city(value, str(request.text).lower()):
                continue  # "reading in berkshire": where the city is, no place of its own
            if _resolve_city(value) is None and not find_cities(value) and not is_region(value):
                found.append(UnknownPlace(value, str(request.tool)))
                names.add(value)
    return found


def _qualifies_a_city(value: str, text: str) -> bool:
    """Whether ``value`` follows a known city's name with "in" or a comma in ``text``."""
    for _start, city in find_cities(text):
        if re.search(rf"\b{re.escape(city)}\s*(?:,|\bin\b)\s*{re.escape(value)}\b", text):
            return True
    return False


def unknown_places(query: str, clauses: list[it.Clause]) -> list[UnknownPlace]:
    """The places weather or clock requests in ``clauses`` name that no tool knows."""
    capitalised = capitalised_words(query)
    found: list[UnknownPlace] = []
    last_tool: str | None = None  # the tool of the place list the previous clause is in
    last_named = False  # whether the previous clause named a place, known or not
    any_known = any(c.cities for c in clauses)
    for index, clause in enumerate(clauses):
        previous = clauses[index - 1] if index > 0 else None
        following = clauses[index + 1] if index + 1 < len(clauses) else None
        names: list[str] = []
        tool: str | None = None
        if clause.own_tool is None:
            if clause.tool in _NEEDS_CITY:
                tool = clause.tool
            elif last_tool is not None:
                tool = last_tool
            elif following is not None and following.tool in _NEEDS_CITY:
                tool = following.tool
            if tool is not None:
                name = _fragment_candidate(clause, previous, last_named, capitalised)
                names = [name] if name else []
        if clause.tool in _NEEDS_CITY and not names:
            tool = clause.tool
            names = _clause_candidates(clause, capitalised, any_known)
        elif _asks_weather_in_a_unit(clause) and not names:
            tool = it.WEATHER  # "the temperature in Warsaw in fahrenheit"
            names = _clause_candidates(clause, capitalised, any_known)
        if not names and clause.tool in _NEEDS_CITY and not clause.cities and following:
            # "what's the weather | and the time in Oslo": the place comes after.
            ahead = _clause_candidates(following, capitalised, any_known)
            if following.tool in _NEEDS_CITY and not following.cities and ahead:
                tool, names = clause.tool, ahead
        for name in names:
            place = UnknownPlace(name, tool or it.WEATHER)
            if place not in found:
                found.append(place)
        last_tool = clause.tool if clause.tool in _NEEDS_CITY else (tool if names else None)
        last_named = bool(clause.cities or names)
    return found


def _asks_weather_in_a_unit(clause: it.Clause) -> bool:
    """A reading asked for in a scale, which reads as a conversion without a number."""
    return (
        clause.tool == it.CONVERT
        and not re.search(r"\d", clause.text)
        and it.tool_cue(re.sub(r"\bin\s+(?:degrees\s+)?\w+$", "", clause.text)) == it.WEATHER
    )


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _close_match(name: str) -> str | None:
    """A big city close to ``name`` but below the lookup's cut-off ("rom": Rome)."""
    match = suggest_city(name)
    return " ".join(w.capitalize() for w in match.split()) if match else None


def unknown_place_message(places: list[UnknownPlace], other_requests: bool) -> str:
    """Why the planner declines: the places it does not know and the ones it does."""
    weather = [p.title for p in places if p.tool == it.WEATHER]
    clock = [p.title for p in places if p.tool == it.CLOCK]
    parts = []
    if weather and weather == clock:
        parts.append(f"a forecast or the local time for {_join(weather)}")
    else:
        if weather:
            parts.append(f"a forecast for {_join(weather)}")
        if clock:
            parts.append(f"the local time in {_join(clock)}")
    names = dict.fromkeys(p.name for p in places if not p.written)
    guesses = [
        f"{close} for {UnknownPlace(name, '').title}"
        for name in names
        if (close := _close_match(name)) is not None
    ]
    text = f"I don't have {' or '.join(parts)}: weather and the world clock know the "
    text += f"{len(cities()):,} cities of GeoNames with 15,000 people or more, and no such place."
    elsewhere = dict.fromkeys(p.written for p in places if p.written)
    if elsewhere:
        text += " " + " ".join(
            f"{place} is not the {_city_in(place)} I know." for place in elsewhere
        )
    if guesses:
        text += f" Did you mean {_join(guesses)}?"
    if other_requests:
        text += (
            " I haven't answered the rest of the request either, rather than give half an "
            "answer: ask again with the cities I know."
        )
    else:
        text += " I won't guess."
    return text


def _city_in(place: str) -> str:
    """The known city a place in another region is named after ("Paris, Texas": Paris)."""
    name = place.rpartition(", ")[0]
    city = resolve_city(name)
    return " ".join(w.capitalize() for w in city.split()) if city else name
