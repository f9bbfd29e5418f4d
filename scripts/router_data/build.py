"""The build: each intent's lines drawn from its maker, deduplicated, train and validation
from two seeds, with the state reads and qualified commands from streams of their own.
"""

from __future__ import annotations

from collections.abc import Callable

from router_data.cloud_lines import compound, oos, smalltalk
from router_data.makers import TOOL_MAKERS, terse
from router_data.state_reads import issue24_rows
from router_data.variation import GENERATED_TOOLS, Gen, heldout_queries

MAKERS: dict[str, Callable[[Gen], str]] = {**TOOL_MAKERS, "smalltalk": smalltalk, "oos": oos}

TERSE_SHARE = 0.25  # of each tool's lines
COMPOUND = "compound"  # the build's name for two requests in one line (labelled "a#b")


def build(seed: int, per_tool: int) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """Deduplicated train and validation rows (the validation set uses another seed)."""
    counts = {name: per_tool for name in MAKERS}
    counts["smalltalk"] = per_tool // 2
    counts["oos"] = round(per_tool * 4 * 0.62)
    counts[COMPOUND] = round(per_tool * 4 * 0.38)

    def rows(gen: Gen, scale: float, exclude: set[str]) -> list[dict[str, str]]:
        out: list[dict[str, str]] = []
        seen: set[str] = set(exclude)
        for intent, count in counts.items():
            target = max(1, int(count * scale))
            tries = 0
            made = 0
            while made < target and tries < target * 20:
                tries += 1
                label = intent
                if intent == COMPOUND:
                    text, label = compound(gen)
                elif intent in GENERATED_TOOLS and gen.chance(TERSE_SHARE):
                    text = terse(gen, intent)
                else:
                    text = MAKERS[intent](gen)
                text = text.strip()
                key = text.lower()
                if not text or key in seen:
                    continue
                seen.add(key)
                out.append({"text": text, "intent": label})
                made += 1
        gen.r.shuffle(out)
        return out

    train = rows(Gen(seed), 1.0, set())
    val = rows(Gen(seed + 1000), 0.2, {row["text"].lower() for row in train})
    # Issue 24's lines come from their own streams: the lines above stay as they were.
    held = heldout_queries()
    seen = {row["text"].lower() for row in train + val}
    first, last = issue24_rows(Gen(seed + 24), per_tool, seen, held)
    train = first + train + last
    first, last = issue24_rows(Gen(seed + 1024), max(1, per_tool // 5), seen, held)
    val = first + val + last
    return train, val
