"""Weather gear: the things people ask the weather about ("do I need an umbrella", "should
I wear a jacket today"), and the fact of the forecast that bears on each.

The device does not advise: it answers such a question with the forecast, leading with
the fact the item depends on (rain for an umbrella, the temperature for a coat or
shorts), and leaves the choice to the user. A question that plans around the weather
(a trip, packing, "what should I wear" with no item) is more than the forecast and stays
the cloud's: :func:`gear_question` reads none there.

>>> gear_question("should i wear a jacket today")
'temperature'
>>> gear_question("do i need an umbrella for work today")
'rain'
>>> gear_question("should i take an umbrella when i go to seattle tomorrow") is None
True
"""

from __future__ import annotations

import re
from typing import Literal

Concern = Literal["rain", "temperature"]

#: Each item and the reading that bears on it.
GEAR: dict[str, Concern] = {
    **dict.fromkeys(
        ("umbrella", "umbrellas", "brolly", "raincoat", "rain coat", "rain jacket", "wellies",
         "wellingtons", "rain boots", "poncho", "waterproof", "waterproofs"),
        "rain",
    ),
    **dict.fromkeys(
        ("jacket", "coat", "gloves", "mittens", "scarf", "hat", "beanie", "layers", "jumper",
         "sweater", "hoodie", "fleece", "warm clothes", "thermals", "cardigan", "shorts",
         "sandals", "t shirt", "t-shirt", "tshirt", "sunscreen", "sun cream", "suncream",
         "sunblock", "sun hat", "flip flops", "skirt", "short sleeves", "long sleeves"),
        "temperature",
    ),
}  # fmt: skip

_ITEM = re.compile(
    r"\b(?:" + "|".join(re.escape(i) for i in sorted(GEAR, key=len, reverse=True)) + r")\b"
)
# How the question asks about an item: "should I wear", "do I need", "is an umbrella
# necessary", "will I need to bring".
ASKING = re.compile(
    r"\b(?:(?:should|shall|must|do|will|would)\s+i\s+(?:(?:need|have)\s+to\s+)?|"
    r"(?:am|are)\s+(?:i|we)\s+going\s+to\s+need\s+(?:to\s+)?|i\s+need\s+(?:to\s+)?|"
    r"is\s+(?:it|there)\s+)?"
    r"(?:bring|take|wear|carry|put\s+on|grab|dress\s+in|need|use)\b"
)
# A plan around the weather, not a question about it: a trip, packing, a destination.
_PLANNING = re.compile(
    r"\b(?:trip|travel\w*|visit\w*|vacation|holiday|flight|fly\w*|journey|pack\w*|"
    r"when\s+i\s+(?:go|get|arrive|land)|(?:go|going|heading|head|drive|driving)\s+to\s+"
    r"(?!(?:need|be|rain|snow|wear|bring|take|get|have)\b))"
)


def gear_question(text: str) -> Concern | None:
    """What the forecast must say to answer a question about weather gear ("rain",
    "temperature"), or None when the text asks about no item, or plans (a trip, packing)."""
    said = " ".join(text.lower().replace("’", "'").split())
    if _PLANNING.search(said) or _to_a_city(said):
        return None
    items = {GEAR[m.group(0)] for m in _ITEM.finditer(said)}
    if len(items) != 1 or not re.search(r"\b(?:need|necessary|should|shall|must|wear|bring|"
                                         r"take|carry|grab)\b", said):  # fmt: skip
        return None
    return items.pop()


def _to_a_city(said: str) -> bool:
    """Gear taken to a city ("an umbrella to paris tomorrow") is for a trip."""
    from understanding.gazetteer import find_cities

    words = said.split()
    return any(pos > 0 and words[pos - 1] == "to" for pos, _city in find_cities(said))
