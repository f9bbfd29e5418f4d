# ruff: noqa: E501 - phrase tables read best one idea per line, even when long
"""The notes' phrasings: adding, removing and searching notes and list items."""

from __future__ import annotations

from router_data.variation import Gen, slot

NOTE_BODIES = [
    "buy milk and eggs", "call mom on sunday", "the wifi password is sunflower42",
    "dentist appointment on tuesday at 3", "pick up the dry cleaning", "renew my passport",
    "garage code is 7781", "pay the electricity bill", "book a table for friday",
    "ideas for the birthday party", "water the plants every monday", "return the library books",
    "the plumber comes on thursday", "parking spot is level 3 row b", "buy a gift for anna",
    "car insurance renews in march", "meeting moved to 4pm", "try the new ramen place",
    "locker combination 12 34 56", "get batteries for the smoke alarm", "send the invoice to tom",
    "cancel the gym membership", "flight to lisbon leaves at 7", "jake's shoe size is 9",
    "feed the cat at 6", "the spare key is under the blue pot", "order more coffee beans",
    "vet appointment for rex next week", "mia is allergic to peanuts", "fix the leaky tap",
    "schedule the oil change", "bring a cake to the office", "the bike lock code is 0420",
    "our anniversary is june 12", "pack the charger", "recipe uses two cups of flour",
    "the lawyer's number is 555 0199", "check the tire pressure", "passport number ends 8812",
    "favourite wine is the rioja from 2019", "grandma likes lilies", "blood pressure 120 over 80",
]  # fmt: skip
LIST_NAMES = ["shopping", "grocery", "to do", "todo", "packing", "christmas", "groceries",
              "chores", "birthday", "hardware store", "reading", "weekend"]  # fmt: skip
LIST_ITEMS = ["milk", "eggs", "bread", "bananas", "coffee", "toilet paper", "batteries",
              "call the bank", "dish soap", "olive oil", "tomatoes", "a birthday card", "cat food",
              "pick up the dry cleaning", "sunscreen", "rice", "light bulbs", "paint the fence",
              "apples", "butter", "book the dentist", "wrapping paper", "pasta", "orange juice"]  # fmt: skip


def add_note(g: Gen) -> str:
    if g.chance(0.35):
        item, name = slot("note_text", g.pick(LIST_ITEMS)), slot("list_name", g.pick(LIST_NAMES))
        forms = [
            f"add {item} to my {name} list", f"add {item} to the {name} list", f"put {item} on the {name} list",
            f"put {item} on my {name} list", f"{name} list: {item}", f"add {item} to {name}",
            f"we need {item}, add it to the {name} list", f"can you add {item} to my {name} list",
            f"please put {item} on my {name} list", f"stick {item} on the {name} list",
            f"i need {item}, put it on the {name} list", f"include {item} in my {name} list",
            f"add {item} on {name} list", f"new item for the {name} list: {item}",
        ]  # fmt: skip
        return g.dress(g.pick(forms))
    body = slot("note_text", g.pick(NOTE_BODIES))
    forms = [
        f"add a note: {body}",
        f"take a note {body}",
        f"note that {body}",
        f"note: {body}",
        f"make a note to {body}",
        f"make a note that {body}",
        f"jot down {body}",
        f"write down {body}",
        f"remember that {body}",
        f"save a note saying {body}",
        f"create a note {body}",
        f"note to self {body}",
        f"new note: {body}",
        f"can you note down that {body}",
        f"put this in my notes: {body}",
        f"add to my notes {body}",
        f"memo: {body}",
        f"please remember {body}",
        f"write this down for me: {body}",
        f"jot this down, {body}",
        f"save this: {body}",
        f"don't let me forget that {body}",
        f'add " {body} " to my notes',
        f"keep a note that {body}",
        f"log a note: {body}",
        f"quick note, {body}",
        f"note down {body}",
        f"can you remember that {body}",
        f"write a note that {body}",
        f"jot a note: {body}",
        f"save to notes: {body}",
        f"add this to my notes: {body}",
        f"{g.pick(['we are almost out of coffee', 'i keep forgetting', 'so i do not forget', 'while i remember'])}, add a note: {body}",
        f"add {body} to my notes",
        f"i need to remember this, note down {body}",
        f"remember this: {body}",
    ]
    return g.dress(g.pick(forms))


def remove_note(g: Gen) -> str:
    item, name = slot("note_text", g.pick(LIST_ITEMS)), slot("list_name", g.pick(LIST_NAMES))
    forms = [
        f"remove {item} from my {name} list", f"take {item} off the {name} list",
        f"delete {item} from the {name} list", f"cross {item} off my {name} list",
        f"{item} can come off the {name} list", f"i bought {item}, take it off the {name} list",
        f"scratch {item} from the {name} list", f"please remove {item} from {name}",
        f"get rid of {item} on my {name} list", f"strike {item} off the {name} list",
        f"remove {item} from my list", f"take {item} off my list", f"delete {item} from my list",
        f"delete the note about {slot('note_text', g.pick(SEARCH_TOPICS))}",
        f"remove my note {slot('note_text', g.pick(NOTE_BODIES))}",
    ]  # fmt: skip
    return g.dress(g.pick(forms))


SEARCH_TOPICS = [
    "wifi password", "dentist", "garage code", "passport", "plumber", "birthday party",
    "car insurance", "the meeting", "milk", "parking spot", "locker combination", "the vet",
    "anna's gift", "flight", "shoe size", "spare key", "coffee", "allergies", "recipe",
    "lawyer", "tire pressure", "anniversary", "invoice", "gym", "library books", "ramen",
    "electricity bill", "bike lock", "blood pressure", "grandma", "the cat", "wine",
]  # fmt: skip


def search_notes(g: Gen) -> str:
    if g.chance(0.08):
        # No list named: the lists there are (the label contract with the tools).
        return g.dress(g.pick([
            "show me my lists", "what lists do i have", "which lists have i got", "read me my lists",
            "what's on my list", "what lists have i made", "do i have any lists", "list all my lists",
            "what's on my lists", "tell me what lists i have", "open my lists", "check my list",
        ]))  # fmt: skip
    if g.chance(0.3):
        name = slot("list_name", g.pick(LIST_NAMES))
        forms = [
            f"what's on my {name} list", f"read my {name} list", f"read out the {name} list",
            f"show me the {name} list", f"what is on the {name} list", f"tell me my {name} list",
            f"what do i have on my {name} list", f"{name} list please", f"open my {name} list",
            f"what's left on the {name} list", f"go through my {name} list",
            f"read back my {name} list for {slot('date', 'today')}", f"check the {name} list",
        ]  # fmt: skip
        return g.dress(g.pick(forms))
    topic = slot("query", g.pick(SEARCH_TOPICS))
    forms = [
        f"what did i note about {topic}",
        f"find my notes about {topic}",
        f"search my notes for {topic}",
        f"search notes for {topic}",
        f"do i have a note about {topic}",
        f"what was my note on {topic}",
        f"look up {topic} in my notes",
        f"what did i write about {topic}",
        f"show me notes mentioning {topic}",
        f"any notes on {topic}",
        f"find the note about {topic}",
        f"what did i save about the {topic}",
        f"check my notes for {topic}",
        f"pull up my note on {topic}",
        f"did i write down anything about {topic}",
        f"what did i jot down about {topic}",
        f"what's in my notes about {topic}",
        f"recall my note about {topic}",
        f"i wrote something about {topic}, can you find it",
        f"what was that note about {topic} again",
        f"dig up the note on {topic}",
        f"remind me what i noted about {topic}",
        f"what do my notes say about {topic}",
        f"have i got anything saved on {topic}",
        f"what did i save regarding {topic}",
        f"pull up notes: {topic}",
        f"look in my notes for {topic}",
        f"notes about {topic}",
        f"{g.pick(['last week', 'yesterday', 'a while ago', 'earlier'])} i saved something about {topic}, can you find it",
        f"i jotted something down about {topic} {g.pick(['last week', 'yesterday', 'the other day'])}, what was it",
        f"i made a note about {topic} at some point, can you pull it up",
    ]
    return g.dress(g.pick(forms))
