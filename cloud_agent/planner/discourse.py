"""What one clause of a compound query lends the next: the tool ("weather in Paris | and
Rome"), the action for a list of devices ("turn off the tv, | the speaker"), the place
("...| and the lights in the basement"), the day ("in Beijing | and Shanghai tomorrow"),
and the repairs of cuts that split one request ("add a note to buy eggs | milk").

These functions change the clauses in place or return the merged list; building each
call's arguments is ``cloud_agent.planner.arguments``'s job.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from cloud_agent.planner import interpret as it
from cloud_agent.planner.arguments import TIME_UNIT, own_arguments
from cloud_agent.planner.clauses import open_knowledge_cues
from understanding.gazetteer import find_cities

NEEDS_CITY = (it.WEATHER, it.CLOCK)
SET_PRONOUN = re.compile(r"\b(?:set|turn|dim|put|change)\s+(?:it|them|that|those)\b")


LEADING_VERB = re.compile(
    r"^(?:turn|switch|lock|unlock|open|close|shut|set|dim|brighten|kill|put|start|stop|power|"
    r"raise|lower|bump|crank|make)\b"
)


def share_device_actions(clauses: list[it.Clause]) -> None:
    """One action for a list of devices, said before or after it: "turn off everything: |
    the tv, | the speaker" (the fragments take the action), "both the fan | and the ac off"
    (the bare device takes the action of the device after it)."""
    for i, clause in enumerate(clauses[:-1]):
        nxt = clauses[i + 1]
        if (
            clause.tool is None
            and clause.action
            and not clause.device
            and not clause.cities
            and nxt.tool is None
            and nxt.device
        ):
            clause.tool = it.DEVICE  # the action alone: its devices follow
    for i in range(len(clauses) - 2, -1, -1):
        clause, nxt = clauses[i], clauses[i + 1]
        if (
            clause.tool is None
            and clause.device
            and not clause.action
            and not clause.cities
            and nxt.tool == it.DEVICE
            and nxt.device
            and nxt.action
            and not LEADING_VERB.match(nxt.text)  # "the ac off", not "lock up"
        ):
            clause.tool, clause.action = it.DEVICE, nxt.action
    for clause, nxt in itertools.pairwise(clauses):
        if (
            clause.tool in (None, it.DEVICE)
            and clause.action
            and clause.room
            and not clause.device
            and nxt.tool in (None, it.DEVICE)
            and nxt.device
            and nxt.room
            and not nxt.action
            and not LEADING_VERB.match(nxt.text)
        ):
            # "switch on the bedroom | and office lights": rooms listed before their device
            clause.tool, clause.device = it.DEVICE, nxt.device
            nxt.tool, nxt.action = it.DEVICE, clause.action
    for clause, nxt in itertools.pairwise(clauses):
        if (
            clause.own_tool == it.DEVICE
            and clause.action is None
            and clause.value is None
            and _SET_SAID.match(clause.text)
            and nxt.own_tool is None
            and nxt.action is None
            and nxt.device in (None, clause.device)
            and _LEVEL_AFTER.search(nxt.text)
        ):
            # "set the heaters in the office | and the study to 20": one level for both
            clause.action = nxt.action = "set"
            clause.value, nxt.tool, nxt.device = nxt.value, it.DEVICE, clause.device


_SET_SAID = re.compile(r"^(?:(?:please|can\s+you|could\s+you)\s+)?(?:set|turn|put)\b")
_LEVEL_AFTER = re.compile(r"\bto\s+-?\d+(?:\.\d+)?(?:\s*(?:%|percent|degrees?))?$")


def share_place_tools(clauses: list[it.Clause]) -> None:
    """Places named before the words that say what to ask of them: "check both the Paris |
    and the Rome weather" (the first place takes the tool, and day, of the clause after)."""
    for i in range(len(clauses) - 2, -1, -1):
        clause, nxt = clauses[i], clauses[i + 1]
        before = clauses[i - 1] if i > 0 else None
        if (
            clause.tool is None
            and clause.cities
            and not clause.device
            and nxt.tool in NEEDS_CITY
            and nxt.cities
            and (before is None or before.tool is None)
        ):
            clause.tool = nxt.tool
            clause.days = clause.days or list(nxt.days)


def carry_tools(clauses: list[it.Clause]) -> None:
    """A fragment with an entity but no tool of its own takes the tool before it."""
    share_device_actions(clauses)
    share_place_tools(clauses)
    previous: it.Clause | None = None
    for index, clause in enumerate(clauses):
        following = clauses[index + 1] if index + 1 < len(clauses) else None
        if (
            previous is not None
            and (previous.tool == it.DEVICE or (previous.tool == it.STATUS and previous.device))
            and (
                (
                    clause.tool in (None, it.DEVICE)
                    and (
                        clause.refers_back
                        or (
                            clause.device == "speaker"
                            and "volume" in clause.text
                            and previous.device in ("tv", "speaker")
                        )
                    )
                )
                or SET_PRONOUN.search(clause.text)
            )
            and it.find_action(clause.text, previous.device)
        ):
            # "turn on the heater and | set it to 23", "turn on the tv and | the volume to 40";
            # "is the tv on? | turn it off" (the device asked about)
            clause.tool, clause.device = it.DEVICE, previous.device
        quantity = _QUANTITY_ALONE.fullmatch(clause.text) and clause.tool is None
        if quantity and previous is not None and previous.tool == it.CONVERT:
            clause.tool = it.CONVERT  # "convert 5 lb, | 12 lb | and 30 lb to kg"
        if (
            clause.tool is None
            and previous is not None
            and previous.tool == it.TIMER
            and own_arguments(it.TIMER, clause.text)
        ):
            clause.tool = it.TIMER  # "a timer for 10 minutes | and another 5 minutes"
        if (
            clause.tool is None
            and previous is not None
            and previous.tool == it.TIMER
            and BARE_DURATION.match(clause.text)
            and TIME_UNIT.search(previous.text)
        ):
            clause.tool = it.TIMER  # "8 minutes for the pasta | and 12 for the sauce"
        if (
            clause.tool is None
            and previous is not None
            and previous.tool
            and clause.has_entity
            and lends_tool(previous.tool, clause, following)
        ):
            clause.tool = previous.tool
            if clause.tool == it.STATUS:  # "are the lights on in the garage, | the porch | ..."
                clause.device = clause.device or previous.device
            if clause.tool == it.DEVICE:
                clause.device = clause.device or previous.device
                clause.action = clause.action or previous.action
                if clause.room and previous.room is None and previous.own_tool == it.DEVICE:
                    # "turn on the heater | and the lights in the basement": one place for both
                    previous.room = clause.room
        previous = clause


_ACTING = frozenset({it.DEVICE, it.TIMER, it.ADD_NOTE, it.REMOVE_NOTE})
_QUANTITY_ALONE = re.compile(r"(?:(?:and|also|plus|then)\s+)*-?\d+(?:\.\d+)?\s*[a-z°]+")


def lends_tool(tool: str, fragment: it.Clause, following: it.Clause | None = None) -> bool:
    """Whether a fragment may take the tool of the clause before it: never a tool that
    acts for a question ("add a note ..., | then how loud is the speaker"), nor for a
    statement the clause after it works on ("remember that. | the recipe wants 400 grams
    of flour, | how much is that in kilograms"), nor a device command for a fragment that
    names a place and no device ("speaker volume to 30 | and will i need sunglasses in
    dubai")."""
    from understanding.arguments.qualifiers import is_question

    if tool in _ACTING and is_question(fragment.text):
        return False
    if (
        tool in _ACTING
        and following is not None
        and following.refers_back
        and following.own_tool in (it.CALCULATOR, it.CONVERT)
    ):
        return False
    return not (tool == it.DEVICE and fragment.cities and not fragment.device)


def merge_fragments(clauses: list[it.Clause], extractor: it.Extractor | None) -> list[it.Clause]:
    """Repair cuts that split one request: join fragments that carry nothing on their own."""
    changed = True
    while changed and len(clauses) > 1:
        changed = False
        for i, clause in enumerate(clauses):
            nxt = clauses[i + 1] if i + 1 < len(clauses) else None
            prev = clauses[i - 1] if i > 0 else None
            lacks_city = clause.tool in NEEDS_CITY and not clause.cities and not clause.refers_back
            # "which city is colder tomorrow, | moscow or stockholm"
            if lacks_city and nxt is not None and nxt.tool is None and nxt.cities:
                clauses[i : i + 2] = [it.read_clause(f"{clause.text} {nxt.text}", extractor)]
                changed = True
                break
            if clause.tool is not None:
                continue
            # "the coffee machine, | is it on?": a device named, then asked about.
            if clause.device and not clause.action and nxt is not None and nxt.tool is None:
                asked = it.read_clause(f"{clause.text} , {nxt.text}", extractor)
                if asked.tool == it.STATUS:
                    clauses[i : i + 2] = [asked]
                    changed = True
                    break
            # "the forecast for marseille on tuesday | and nice on thursday": the next place
            # of a list, named by an everyday word, with its own day or none.
            listed = listed_place(clause, prev)
            if listed is not None:
                clause.cities = [listed]
                changed = True
                break
            # "in london, | will tomorrow be warmer than today"; "between paris | and london,
            # | which one is warmer": places listed first, then what to ask of them.
            run = place_run(clauses, i)
            target = clauses[i + len(run)] if i + len(run) < len(clauses) else None
            if (
                run
                and target is not None
                and target.tool in NEEDS_CITY
                and not target.cities
                and (prev is None or prev.tool is None)
            ):
                cities = [city for c in run for city in c.cities]
                merged = it.read_clause(f"{target.text} in {' and '.join(cities)}", extractor)
                merged.days = target.days or [d for c in run for d in c.days][:1]
                clauses[i : i + len(run) + 1] = [merged]
                changed = True
                break
            # "is stockholm colder than moscow, | today": a day that belongs to the clause.
            if (
                clause.days
                and not clause.cities
                and not clause.device
                and prev is not None
                and prev.tool in NEEDS_CITY
                and not prev.days
                and not ANOTHER_DAY.match(clause.text)
            ):
                prev.days = clause.days
                del clauses[i]
                changed = True
                break
            # "search my notes for recipes | as well as anything about pasta": a second search.
            if (
                prev is not None
                and prev.tool == it.SEARCH_NOTES
                and ANOTHER_SEARCH.match(clause.text)
            ):
                clause.tool = clause.own_tool = it.SEARCH_NOTES
                changed = True
                break
            # "add a note to buy eggs | milk": a cut inside free text.
            if (
                not clause.has_entity
                and not open_knowledge_cues(clause.text)
                and prev is not None
                and prev.tool in (it.ADD_NOTE, it.SEARCH_NOTES)
            ):
                joined = it.read_clause(f"{prev.text} and {clause.text}", extractor)
                joined.tool = prev.tool
                clauses[i - 1 : i + 1] = [joined]
                changed = True
                break
    return clauses


# "... and what about tomorrow": the same request again for another day.
ANOTHER_DAY = re.compile(r"^(?:and\s+)?(?:what|how)\s+about\b")

ANOTHER_SEARCH = re.compile(
    r"^(?:for\s+)?(?:anything|something|stuff|everything|whatever|any\s+notes?|notes?)\s+"
    r"(?:about|on|regarding|mentioning|with|for)\s+\S"
)


# A number said for a duration whose unit an earlier timer gave: "| and 12 for the sauce".
BARE_DURATION = re.compile(
    r"^(?:and\s+|then\s+)?(?:another\s+(?:one\s+)?)?(?:for\s+)?\d+(?:\.\d+)?"
    r"(?:\s+for\s+(?:the\s+|my\s+)?[a-z' ]+)?$"
)


_DAY_ONLY = re.compile(
    r"(?:(?:on\s+)?(?:today|tomorrow|tonight|(?:mon|tues|wednes|thurs|fri|satur|sun)day))?"
)


def listed_place(clause: it.Clause, prev: it.Clause | None) -> str | None:
    """The city a clause names by an everyday word ("nice", "reading") when it only
    continues the list of places of the clause before, else None."""
    if clause.cities or prev is None or not prev.cities or prev.tool not in NEEDS_CITY:
        return None
    listed = find_cities(f"in {clause.text}")
    if len(listed) != 1 or listed[0][0] != 1:
        return None
    words = [w for w in re.findall(r"[\w']+", clause.text)]
    rest = " ".join(words[len(listed[0][1].split()) :])
    return listed[0][1] if _DAY_ONLY.fullmatch(rest) else None


def place_run(clauses: list[it.Clause], start: int) -> list[it.Clause]:
    """The fragments from ``start`` on that name places and nothing else (no tool of their
    own, no device): a list of cities waiting for the clause that says what to ask."""
    run = []
    for clause in clauses[start:]:
        if clause.tool is not None or not clause.cities or clause.device:
            break
        run.append(clause)
    return run


def carried_days(clause: it.Clause, clauses: list[it.Clause]) -> list[str]:
    """A clause without a day takes the day of the next clause of its tool, else the last."""
    if clause.days:
        return clause.days
    index = clauses.index(clause)
    # Only fragments that carry the tool over share a day ("weather in Beijing | and
    # Shanghai tomorrow"); a clause with words of its own starts afresh ("..., and what's
    # the temperature in Chicago" is today).
    following = clauses[index + 1 :]
    carried = []
    for c in following:
        if c.own_tool is not None or c.tool != clause.tool:
            break
        carried.append(c)
    # Only the fragments that name another place lend it their day ("weather in Beijing |
    # and Shanghai tomorrow"); "| and what about tomorrow" asks for the day on its own.
    later = [c for c in carried if c.days and c.cities and not ANOTHER_DAY.match(c.text)]
    if later:
        return later[0].days[:1]
    if clause.own_tool is None:
        earlier = [c for c in clauses[:index] if c.tool == clause.tool and c.days]
        if earlier:
            return earlier[-1].days[-1:]
    return ["today"]


COMPARES = re.compile(r"\b(?:than|or|versus|compared)\b|\w+er\b")
ALL_OF_THEM = re.compile(
    r"\b(?:in|for|at)\s+(?:both|each|all)\b|\b(?:both|all|each)\s+(?:of\s+(?:them|those)|places|cities)\b"
)


def reading_places(
    clause: it.Clause, previous: it.Clause | None, clauses: list[it.Clause], home: Any
) -> list[str]:
    """The places a reading is for: its own, the next clause's, every one named so far
    ("in both"), the one "there" points at, the one before, else the device's home; the
    home too where the words say it ("here", "ahead of me"), in the order said."""
    home_city = getattr(home, "home_city", None)
    said_home = _HOME_SAID.search(clause.text) if home_city else None
    if said_home is not None and re.search(r"\bhere\s+in\b", clause.text):
        said_home = None  # "today here in madrid": the place named is where "here" is
    if said_home is not None:
        here = str(home_city)
        own = [c for c in clause.cities if c != here]
        if re.search(r"\bthere\b", clause.text) and previous is not None:
            own = [c for c in previous.cities if c != here] + own
        first = min((clause.text.find(c) for c in own if c in clause.text), default=-1)
        return [here, *own] if 0 <= said_home.start() < first else [*own, here]
    cities = clause.cities
    if not cities and _names_a_region(clause.text):
        return []  # "the time in california": a region, no city; not the next clause's
    if not cities and not clause.refers_back:
        # "what's the time | and weather in Tokyo": the places come after.
        index = clauses.index(clause)
        following = clauses[index + 1] if index + 1 < len(clauses) else None
        if following is not None and following.tool in NEEDS_CITY and following.cities:
            cities = following.cities
            clause.days = clause.days or following.days
    if not cities and ALL_OF_THEM.search(clause.text):
        # "weather in Istanbul and Cairo and the time in both": every place named so far.
        index = clauses.index(clause)
        cities = list(dict.fromkeys(city for c in clauses[:index] for city in c.cities))
    there = re.search(r"\bthere\b", clause.text) is not None
    if not cities and previous is not None and (clause.refers_back or there):
        cities = previous.cities
    elif cities and there and previous is not None and COMPARES.search(clause.text):
        # "what's the time in Rome and | is it warmer there than in Madrid"
        cities = [c for c in previous.cities if c not in cities] + cities
    if not cities and previous is not None and previous.tool in NEEDS_CITY:
        cities = previous.cities  # "weather in melbourne today | and tomorrow"
    if not cities and home_city and not clause.refers_back:
        cities = [home_city]  # no place named or carried: the device's home
    return cities


# The words that name the device's home as a place: "warmer here or in barcelona", "the
# time here", "how many hours ahead of me is singapore".
_HOME_SAID = re.compile(
    r"\b(?:here|at\s+home|where\s+i\s+(?:am|live)|(?:ahead\s+of|behind|than)\s+(?:me|us))\b"
)


# An addition that names no list of its own ("and add oat milk instead", "also add coffee
# beans", "then put rice and beans on it"): its items, the pointer back and the filler.
_ADDED = re.compile(
    r"^(?:(?:and|then|also|so|plus|now)\s+)*(?:add|put|stick|throw|pop|chuck|pick)\s+"
    r"(?P<items>.+?)(?:\s+(?:on|to|onto|in)\s+(?:it|there|that|the\s+list))?"
    r"(?:\s+(?:instead|too|as\s+well|also|please))*$"
)
_NOT_AN_ITEM = re.compile(r"\b(?:notes?|lists?|timers?|alarms?|reminders?)\b")


def added_to_the_list(clauses: list[it.Clause]) -> None:
    """An addition that names no list, after a request on a list the words name ("clear
    the shopping list | and then add rice | and beans", "take eggs off the shopping list |
    and add oat milk instead", "what's on my shopping list? | also add coffee beans"): the
    items go on that list, each one said after it too; not a note of their own, nor a
    search."""
    named: str | None = None
    adding = False
    for clause in clauses:
        args = clause.args or {}
        found = _ADDED.match(clause.text)
        items = found.group("items") if found else ""
        if found and named and not args.get("list") and not _NOT_AN_ITEM.search(items):
            clause.tool = clause.own_tool = it.ADD_NOTE
            clause.args = {"text": items, "list": named}
            adding = True
            continue
        bare = clause.own_tool is None and not clause.has_entity and clause.value is None
        if adding and bare and clause.tool in (None, it.ADD_NOTE) and len(clause.text.split()) <= 4:
            text = re.sub(r"^(?:and|also|plus)\s+", "", clause.text)
            clause.tool = clause.own_tool = it.ADD_NOTE  # "| and beans": the next item
            clause.args = {"text": text, "list": named}
            continue
        adding = False
        if isinstance(args.get("list"), str):
            named = str(args["list"])
            # "put batteries and bin bags on the shopping list | oh and dish soap"
            adding = clause.tool == it.ADD_NOTE


def lend_after_reading(clauses: list[it.Clause]) -> None:
    """What a clause lends the next once every clause is read, on either split: a list
    to an addition naming none (:func:`added_to_the_list`), a room to a command that
    points back at the device before (:func:`room_pointed_at`)."""
    added_to_the_list(clauses)
    room_pointed_at(clauses)


def room_pointed_at(clauses: list[it.Clause]) -> None:
    """A command on "it"/"them" of the device just commanded in a room takes that room
    ("unmute the kitchen speaker and turn it up": the kitchen's speaker, not the default
    room's)."""
    for previous, clause in itertools.pairwise(clauses):
        args, before = clause.args, previous.args or {}
        if clause.tool != it.DEVICE or not args or args.get("room") or not clause.refers_back:
            continue
        room = before.get("room") or previous.room
        if previous.tool == it.DEVICE and before.get("device") == args.get("device") and room:
            clause.args = {**args, "room": room}


_IN_A_REGION = re.compile(r"\bin\s+(?:the\s+)?([a-z][a-z.'-]*(?:\s+[a-z][a-z.'-]*){0,2})\s*$")


def _names_a_region(text: str) -> bool:
    """Whether the words end "in <a country or region>" ("the time in california")."""
    from understanding.gazetteer import is_region

    found = _IN_A_REGION.search(text)
    words = found.group(1).split() if found else []
    return any(is_region(" ".join(words[:k])) for k in range(len(words), 0, -1))
