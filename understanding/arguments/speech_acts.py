"""Words about a device that command nothing: a report, a relayed request, a state kept.

"I turned the heater off already" and "the kitchen light is on again" tell the assistant
something; "my wife said to switch the heating off" relays what someone else wants, which
the person may or may not be asking for; "leave the fan on" keeps a state rather than
changing one. Each names a device and an action word, so a reader that looks for those
would switch something. :func:`not_a_command` says which of these the words are, and the
device grounding (``understanding.grounding``) runs no command on them. A question is the
qualifier reader's (``qualifiers.is_question``).
"""

from __future__ import annotations

import re

__all__ = ["not_a_command"]

_SUBJECT = (
    r"(?:i|we|he|she|they|someone|somebody|(?:my|our|the)\s+[a-z]+(?:'s)?|mum|mom|dad|"
    r"(?!(?:let|what|it|that|there|who|here|how|where)'s)[a-z]+'s)"
)
_DONE = (
    r"(?:turned|switched|put|shut|left|started|stopped|locked|unlocked|opened|closed|muted|"
    r"unmuted|dimmed|unplugged|plugged|set|changed)"
)
# "i turned the heater off already", "my husband's just switched off the garage light"
_REPORTED_DONE = re.compile(
    rf"^(?:(?:um|oh|so|ok|okay|hey|fyi|just\s+so\s+you\s+know),?\s+)*{_SUBJECT}(?:'ve|'d)?\s+"
    rf"(?:(?:just|already|have|has|had|'ve|'s|also)\s+)*{_DONE}\b"
)
# "the kitchen light is on again", "the blinds are open": a state told, no change asked
_STATE_TOLD = re.compile(
    r"^(?:(?:um|oh|so|hey)\s+)*(?:the|my|our)\s+[\w\s']+?\s+(?:is|are|was|were)\s+"
    r"(?:still\s+|already\s+)?(?:on|off|open|closed|locked|unlocked|running|going)"
    r"(?:\s+(?:again|now|already))?[.!]?$"
)
# "mum says turn the music down", "my wife said to switch the heating off", "tom says ..."
_RELAYED = re.compile(
    rf"^(?:(?:um|oh|so|hey)\s+)*(?:{_SUBJECT}|[a-z]+)\s+(?:says|said|say|told\s+(?:me|us)|asked\s+(?:me|us)|"
    r"wants\s+(?:me|us)|reckons)\b"
)
# "leave the fan on", "keep the porch light off": a state kept, which no command changes
_KEPT = re.compile(
    r"^(?:(?:please|just|can\s+you|could\s+you|you\s+can|ok|okay)\s+)*(?:leave|keep)\b"
)
# A later clause that does command: "i left the heater on, turn it off"
_THEN_ASKED = re.compile(r"(?:,|\band\b|\bso\b|\bbut\b|\bcan\s+you\b|\bcould\s+you\b|\bplease\b)")


def not_a_command(words: str) -> str | None:
    """Why the words command no device (a report, a relayed request, a state kept), or
    None when they may command one."""
    said = " ".join(words.lower().replace("\u2019", "'").split())
    done = _REPORTED_DONE.match(said)
    if done is not None and not _THEN_ASKED.search(said[done.end() :]):
        return f"{words.strip()!r} tells what was done; it asks for nothing"
    if _STATE_TOLD.match(said):
        return f"{words.strip()!r} tells a device's state; it asks for no change"
    if _RELAYED.match(said):
        return f"{words.strip()!r} relays what someone else said, no request of its own"
    if _KEPT.match(said):
        return f"{words.strip()!r} keeps a state: no command changes it"
    return None
