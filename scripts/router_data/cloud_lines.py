# ruff: noqa: E501 - phrase tables read best one idea per line, even when long
"""The lines the device leaves alone or hands on: small talk (answered with no tool) and
the cloud's (``oos``: knowledge, writing, reasoning, a tool request with a follow-up no
tool does, two requests in one line).
"""

from __future__ import annotations

from collections.abc import Callable

from router_data.makers import TOOL_MAKERS
from router_data.notes import LIST_NAMES, SEARCH_TOPICS
from router_data.variation import GENERATED_TOOLS, Gen, slot
from understanding.tools import SIDE_EFFECT_TOOLS

SMALLTALK = [
    "hi", "hello", "hey", "hey there", "good morning", "good evening", "good night", "yo",
    "thanks", "thank you", "thank you so much", "thanks a lot", "cheers", "much appreciated",
    "what can you do", "what are you able to do", "what can you help me with", "help",
    "who are you", "what are you", "how are you", "how's it going", "bye", "goodbye",
    "see you later", "nice", "cool", "great, thanks", "awesome", "you're the best",
    "what tools do you have", "what features do you have", "how do i use you",
    "are you there", "hello assistant", "hi there, how are you doing", "thanks buddy",
    "ok thanks", "good job", "that's all for now", "never mind", "sorry", "ok", "okay cool",
    "what's your name", "nice to meet you", "morning!", "thx", "ty", "hello?", "hiya",
    "what can i ask you", "what do you do", "can you help me", "list your skills",
    "are you a robot", "how can you help", "tell me what you can do", "sup",
    "greetings", "good afternoon", "thanks, that's helpful", "perfect, thank you",
    "how ya doing", "how have you been", "how's life", "what's up", "heyo", "hello hello",
    "i owe you one", "i'm grateful", "much obliged", "that's kind of you", "you have my thanks",
    "until next time", "peace out", "take care", "talk soon", "farewell", "catch you later",
    "i enjoyed our chat, bye", "what kinds of things can i ask you", "what sort of questions do you answer",
    "what are you good at", "tell me about your features", "thanks for the help today",
    "are you doing ok", "good to see you", "hey hey", "cheers for that", "nice one, thanks",
]  # fmt: skip


def smalltalk(g: Gen) -> str:
    text = g.pick(SMALLTALK)
    if g.chance(0.3):
        text += g.pick(["!", "?", " :)", "!!", ".", " again"])
    if g.chance(0.15):
        text = g.typos(text, 0.3)
    return text[:1].upper() + text[1:] if g.chance(0.4) else text


# -- the cloud's queries ----------------------------------------------------------------


def _bare(fn: Callable[[Gen], str]) -> Callable[[Gen], str]:
    """A tool phrasing without casual clothing, for joining into compound queries."""

    def make(g: Gen) -> str:
        keep = g.r.random
        g.r.random = lambda: 0.99  # type: ignore[method-assign]
        try:
            text = fn(g)
        finally:
            g.r.random = keep  # type: ignore[method-assign]
        return text

    return make


KNOWLEDGE = [
    "who invented the telephone", "what is the capital of australia", "why is the sky blue",
    "how do vaccines work", "explain quantum computing simply", "who won the world cup in 2018",
    "what's the population of tokyo", "how tall is mount everest", "what is photosynthesis",
    "who wrote pride and prejudice", "what causes inflation", "how does a car engine work",
    "what's the meaning of life", "what are black holes", "when did the roman empire fall",
    "what's the best programming language to learn", "how do i make sourdough bread",
    "what's a good book to read", "recommend a movie for tonight", "how do airplanes fly",
    "what is the history of paris", "tell me about the eiffel tower", "who is the ceo of apple",
    "what's the stock price of tesla", "latest news", "what happened in the news today",
    "what's the score of the game", "how do i fix a flat tire", "how do i learn spanish",
    "what's the difference between a virus and bacteria", "is coffee bad for you",
    "translate good morning into french", "how do you say thank you in japanese",
    "what does ephemeral mean", "define serendipity", "what's a synonym for happy",
    "best restaurants in rome", "things to do in london this weekend",
    "how far is the moon", "how many people live in berlin", "what language do they speak in brazil",
    "book me a flight to berlin", "find me a hotel in madrid", "order a pizza",
    "play some jazz", "play the latest taylor swift album", "call mom", "text john i'm late",
    "send an email to my boss", "what's on my calendar today", "schedule a meeting at 3pm",
    "navigate to the nearest gas station", "how long does it take to drive to chicago",
    "what's the traffic like", "convert 100 dollars to euros", "how much is a bitcoin worth",
    "what's the exchange rate for yen", "how many calories are in a banana",
    "what should i cook for dinner", "give me a workout plan", "how do i lower my cholesterol",
    "is it safe to travel to cairo", "what's the tallest building in dubai",
    "who painted the mona lisa", "how old is the universe", "what's the speed of light",
    "explain the theory of relativity", "how does the stock market work",
    "what's the best way to save money", "help me plan a trip to japan",
    "what's the time complexity of quicksort", "debug my python code",
    "summarize the plot of hamlet", "what year did world war two end",
    "what is the boiling point of water at altitude", "why do cats purr",
    "what's a good name for a dog", "tell me a joke", "tell me a fun fact",
    "what's the weather usually like in paris in april", "when is the best time to visit tokyo",
    "what time does the louvre open", "when does the sun set in london",
    "what time is sunrise in sydney tomorrow", "how many time zones does russia have",
    "is it daylight saving time in new york", "what's the time difference between london and tokyo",
    "what's the temperature of the sun", "how hot is lava", "what's the average rainfall in seattle",
    "will it be a cold winter this year", "is climate change real",
    "what is 15 percent of my salary", "calculate my bmi", "how much should i tip",
    "solve x squared plus 2x equals 8", "what's the derivative of x cubed", "is 97 a prime number",
    "what is the integral of sin x", "explain how percentages work",
    "if a train travels 60 miles per hour for 3 hours how far does it go",
    "i have 3 apples and eat one, how many are left", "what's the 100th digit of pi",
    "how many cups are in a gallon", "how many calories do i burn running 5 km",
    "how much does a blue whale weigh", "how far is tokyo from osaka",
    "how long would it take to walk 10 km", "what's heavier, a kilo of feathers or steel",
    "summarize my notes", "edit my shopping list note",
    "how many notes do i have", "share my notes with anna", "email my notes to tom",
    "sort my notes by date", "translate my last note into spanish", "delete all my notes",
    # (timers listed or cancelled and a device's state are the device's now: issue 24)
    "pause the timer", "stop the alarm", "snooze",
    "turn off the lights when i leave", "turn on the lights at sunset", "make the house cozy",
    "buy a new lamp", "why is my wifi slow", "my heater is broken, what should i do",
    "set up a new smart bulb", "what devices are connected",
    "dim the lights slowly over 10 minutes", "turn the lights on every morning at 7",
    "what's the energy usage of my heater", "how do i reset my thermostat",
]  # fmt: skip
WRITING = [
    "write a poem about rain", "write a haiku about the weather", "write me a short story",
    "draft an email to my landlord about the heating", "write a birthday message for my mom",
    "compose a tweet about my morning", "write a cover letter for a barista job",
    "write a limerick about a cat", "help me write a toast for a wedding",
    "write a song about paris", "write a poem about time", "write an essay on climate change",
    "write a note to my neighbour apologising for the noise", "draft a text to cancel dinner",
    "write a product description for a lamp", "write a thank you card for my teacher",
    "rewrite this sentence to sound more formal", "summarise this article for me",
    "give me ideas for a blog post", "write a joke about timers", "write a story about a robot",
    "make up a bedtime story about the moon", "write a speech for my graduation",
    "help me write a complaint letter", "write a love letter", "write lyrics about the ocean",
]  # fmt: skip
REASONING = [
    "is it warmer in {a} than {b}", "which is colder, {a} or {b}", "compare the weather in {a} and {b}",
    "is it hotter in {a} or {b} today", "where is it sunnier, {a} or {b}",
    "what's the time difference between {a} and {b}", "is {a} ahead of {b} in time",
    "should i bring an umbrella to {a} tomorrow", "what should i wear in {a} today",
    "is it a good day for a picnic in {a}", "is tomorrow a good day to go hiking in {a}",
    "should i go running in {a} this evening", "can i go to the beach in {a} tomorrow",
    "what's the weather in {a} and {b}", "weather in {a} and {b} tomorrow",
    "what time is it in {a} and {b}", "time in {a} and in {b}",
    "weather in {a} next week", "what was the weather in {a} yesterday",
    "10 day forecast for {a}",
    "what's the weather in {a} in fahrenheit", "convert the temperature in {a} to fahrenheit",
    "if it's noon in {a} what time is it in {b}", "when it's 9am in {a} what time is it in {b}",
    "is it too late to call {a}", "is it a good time to call my friend in {a}",
    "what time should i ring my friend in {a} so it's not the middle of the night",
    "when's the best time to schedule a call with {a}",
    "how many hours ahead is {a}", "what's the weather like in {a} in december",
    "why is {a} so rainy", "which city is warmer today, {a} or {b}",
    "plan a day trip in {a} based on the weather", "is it going to be colder tomorrow than today in {a}",
    "what's the average temperature in {a} in july", "how far is {a} from {b}",
    "flights from {a} to {b}", "what's the best time to visit {a}",
]  # fmt: skip
# Questions about a city that neither the forecast nor the clock answers.
CITY_KNOWLEDGE = [
    "what's the population of {a}", "how many people live in {a}", "tell me about {a}",
    "what is {a} famous for", "best restaurants in {a}", "things to do in {a}",
    "what country is {a} in", "history of {a}", "how big is {a}", "find me a hotel in {a}",
    "book a flight to {a}", "what language do they speak in {a}", "is {a} expensive",
    "cost of living in {a}", "how do i get to {a} from the airport", "what's the capital near {a}",
    "top museums in {a}", "what currency do they use in {a}", "is {a} safe for tourists",
    "what to see in {a} in two days", "when was {a} founded", "nightlife in {a}",
    "how far is {a} from here", "what's the nickname of {a}", "what sports teams are in {a}",
    "who is the mayor of {a}", "what's the best neighbourhood to stay in {a}",
    "what's the time zone of {a} called", "what's the area code for {a}",
    "show me a map of {a}", "what's the elevation of {a}", "what river runs through {a}",
    "what's the average salary in {a}", "how old is {a}", "why is {a} called that",
]  # fmt: skip
JOINERS = [" and ", " and then ", ", then ", " then ", " and also ", ". also ", " after that ",
           ", and ", " plus ", "; ", " & ", " and after that "]  # fmt: skip


def compound(g: Gen) -> tuple[str, str]:
    """Two tool requests in one query, and their intents joined by ``#`` (the format's
    multi-intent label): the cloud's, since the device runs one request. The frozen-heads
    trainer reads such lines as ``oos``; the joint model's trainer composes its own."""
    names = [n for n in GENERATED_TOOLS if n != "remove_note"]
    first, second = g.r.sample(names, 2) if g.chance(0.8) else [g.r.choice(names)] * 2
    a, b = _bare(TOOL_MAKERS[first])(g), _bare(TOOL_MAKERS[second])(g)
    if first == second and a == b:
        b = _bare(TOOL_MAKERS[second])(g)
    return g.dress(a + g.pick(JOINERS) + b), f"{first}#{second}"


# What people ask right after a tool's answer that no device tool does: the whole query
# is the cloud's, even though it starts as a tool request.
FOLLOW_UPS: dict[str, list[str]] = {
    "any": [
        "tell me what you think", "explain why", "send it to {who}", "text it to {who}",
        "email the answer to {who}", "write a short summary of it", "post it in the family chat",
        "tell me if that's normal", "compare it with last year", "make a plan from it",
        "translate it into {lang}", "draft a message to {who} about it",
        "tell me what i should do about it", "put it in a nice table", "write it up as a poem",
    ],
    "get_weather": [
        "tell me if i should {activity}", "suggest what to wear", "plan my day around it",
        "tell me if it's a good day to {activity}", "let me know if we should move the {event}",
        "pack my bag accordingly", "tell me which is the best day to {activity}",
    ],
    "search_notes": [
        "make a {made} from it", "write an email about it", "summarise it", "turn it into a to do list",
        "tell me what i forgot", "rewrite it more clearly", "check it for mistakes",
    ],
    "world_clock": [
        "tell me if it's too late to call", "work out when i should call {who}",
        "tell me when the shops open there", "tell me if {who} is still awake",
    ],
    "calculator": ["explain how you got it", "show me the steps", "tell me if that's a good deal",
                   "tell me how to do it by hand"],
    "device_control": ["tell me how much energy it uses", "do it every morning from now on",
                       "tell me why it keeps breaking", "order a new one online",
                       "tell me if it's safe to leave it like that overnight"],
    "set_timer": ["tell me what to cook in the meantime", "give me a recipe for it",
                  "tell me how long the eggs should really boil"],
    "add_note": ["send the list to {who}", "share it with {who}", "tell me what else i need for it"],
}  # fmt: skip
WHO = ["my brother", "my sister", "mom", "dad", "anna", "my boss", "the team", "tom", "grandma"]
LANGS = ["french", "spanish", "german", "japanese", "italian"]
ACTIVITIES = ["go hiking", "reschedule the picnic", "cycle to work", "hang the washing out",
              "play tennis", "go to the beach", "wash the car", "take the kids to the park"]  # fmt: skip
EVENTS = ["barbecue", "picnic", "football match", "garden party", "run", "hike"]
MADE = ["packing list", "shopping list", "plan", "checklist", "timeline", "budget"]
FOLLOW_JOINERS = [" and ", " and then ", ", then ", " then ", ". also ", " and after that "]


def tool_and_follow_up(g: Gen) -> str:
    """A tool request and something only the cloud can do with its answer."""
    tool = g.pick([n for n in GENERATED_TOOLS if n != "remove_note"])
    ask = _bare(TOOL_MAKERS[tool])(g)
    # An action's follow-up is about the action ("... and do it every morning"): a
    # generic one ("... and explain why") after a command is no request people make.
    generic = [] if tool in SIDE_EFFECT_TOOLS else FOLLOW_UPS["any"]
    follow = g.pick(FOLLOW_UPS.get(tool, []) + generic if g.chance(0.6) or not generic else generic)
    follow = follow.format(
        who=g.pick(WHO), lang=g.pick(LANGS), activity=g.pick(ACTIVITIES), event=g.pick(EVENTS),
        made=g.pick(MADE),
    )  # fmt: skip
    return g.dress(ask + g.pick(FOLLOW_JOINERS) + follow)


NOTE_OPS = ["summarize", "summarise", "share", "email", "translate", "rewrite", "print", "sort",
            "edit", "merge", "archive", "proofread", "send", "count the words in", "tidy up"]  # fmt: skip
NOTE_CONTENTS = ["a packing list", "a meal plan", "a workout plan", "a recipe", "some ideas",
                 "a summary", "a list of gift ideas", "a reading list", "an itinerary", "a budget"]  # fmt: skip
NOTE_PURPOSES = ["a camping trip", "next week", "a dinner party", "a ski holiday", "my marathon training",
                 "the kids' birthday", "a weekend in rome", "moving house", "a road trip"]  # fmt: skip


def notes_beyond_the_tools(g: Gen) -> str:
    """Note and list work the note tools do not do: summaries, sharing, notes whose
    content the assistant would have to write."""
    topic = g.pick(SEARCH_TOPICS)
    op = g.pick(NOTE_OPS)
    made, purpose = g.pick(NOTE_CONTENTS), g.pick(NOTE_PURPOSES)
    forms = [
        f"{op} my notes about {topic}", f"{op} my {g.pick(LIST_NAMES)} list",
        f"{op} all my notes", f"can you {op} the note about {topic}",
        f"{g.pick(['add', 'make', 'write', 'create'])} a note {g.pick(['with', 'containing'])} {made} for {purpose}",
        f"make me {made} for {purpose} and save it to my notes",
        f"write {made} for {purpose} in my notes", f"fill my {g.pick(LIST_NAMES)} list with ideas for {purpose}",
        f"what should go on my {g.pick(LIST_NAMES)} list for {purpose}",
    ]  # fmt: skip
    return g.dress(g.pick(forms))


def math_beyond_the_calculator(g: Gen) -> str:
    """Algebra, calculus, number theory and word problems of several steps: the cloud's."""
    n, m, p, q = g.r.randint(2, 99), g.r.randint(2, 9), g.r.randint(5, 40), g.r.randint(3, 20)
    poly = g.pick([f"x squared plus {m}x", f"{m}x^2 - {n}", f"x cubed minus {m}x", f"{m}x + {n}",
                   f"sin x times {m}", f"e to the {m}x", f"x^{m} + {n}x"])  # fmt: skip
    item = g.pick(["a jacket", "a laptop", "the sofa", "a bike", "a pair of shoes", "the tickets"])
    forms = [
        f"what's the derivative of {poly}", f"differentiate {poly}", f"integrate {poly}",
        f"solve {poly} = {n}", f"factor {poly}", f"simplify ({poly}) / x", f"find x if {poly} equals {n}",
        f"is {n * 7 + 3} a prime number", f"what are the prime factors of {n * m * 6}",
        f"what's the limit of {poly} as x goes to infinity", f"plot {poly}",
        f"{item} costs {n * 10} dollars, it's {p}% off and then {q}% tax goes on top, what do i pay",
        f"if i save {n * 10} a month at {q}% interest how much will i have in {m} years",
        f"a train leaves at {m} going {n} miles an hour and another one follows an hour later at {n + 20}, when does it catch up",
        f"i earn {n * 100} a month, rent is {p}% and food is {q}% of what's left, how much remains",
        f"split {n * 10} dollars between {m} people where one pays double, how much does each pay",
        f"what's the probability of rolling two sixes in {m} throws",
        f"what's the average of my last {m} electricity bills",
    ]  # fmt: skip
    return g.dress(g.pick(forms))


def oos(g: Gen) -> str:
    roll = g.r.random()
    if roll < 0.30:
        template = g.pick(REASONING)
        a = g.city()
        b = g.city()
        while b.lower() == a.lower():
            b = g.city()
        return g.dress(template.format(a=slot("place_name", a), b=slot("place_name", b)))
    if roll < 0.40:
        return g.dress(g.pick(CITY_KNOWLEDGE).format(a=slot("place_name", g.city())))
    if roll < 0.52:
        return g.dress(g.pick(WRITING))
    if roll < 0.72:
        return g.dress(g.pick(KNOWLEDGE))
    if roll < 0.80:
        return tool_and_follow_up(g)
    if roll < 0.90:
        return notes_beyond_the_tools(g)
    return math_beyond_the_calculator(g)
