"""The router: answer on the device with one tool, or hand the query to the cloud.

A decision has four gates, each of which can only send a query to the cloud:

1. the intent model (encoder + heads, trained by ``understanding.intents``) names a tool or
   small talk and is in scope;
2. its confidence clears the calibrated threshold stored with the model
   (``router.json``, written by ``scripts/build_router.py`` from the validation set);
   a tool of yours with side effects also needs the model's stricter side-effect floor
   (``IntentPrediction.side_effect_ok``, calibrated by ``edge-agent train``);
3. the structure of the query is one request (``understanding.structure``): no second
   request after "and"/"then", no comparison or advice around a weather or time lookup;
4. the tool's arguments fill validly from the words (``understanding.arguments``).

So the device keeps a query only when all four agree, and guessing is never the
fallback. Every call with a side effect then goes through the side-effect policy
(``understanding.policy``): its floor, its grounding, its qualifiers (read into
``device_control``'s ``room: "all"``, ``except``, ``at``, ``for`` where the device executes
them, ``understanding.arguments.qualifiers``) and no second request; a question about a
device is a read (``device_status``), and a clear request missing an argument is asked
back (route ``ask``, with ``missing`` and ``question``). A router trained on your own
intents can carry your own tools
(``Router.load(dir, tools=[...])``, see ``understanding.tools.user``): an intent named like
one of them runs it, with arguments read by the schema-driven readers of
``understanding.arguments.schema``. A joint intent + slot model (``understanding.slu``,
trained on data with slots) replaces gates 3 and 4: it finds every request of a compound
query and each one's slots, and the arguments come from the slots
(``understanding.arguments.slots`` for your tools, ``understanding.arguments.builtin_slots``
for the built-in ones, the readers over the request's words standing in only where that
module says); the decision then lists every call in ``calls``. The frozen-heads router
(intents only) keeps gates 3 and 4 as they are.
``decide`` is pure (no I/O after loading) and fast, so
the cloud's planner can reuse it on each clause of a compound query.

>>> router = Router.load()                                # doctest: +SKIP
>>> router.decide("what's 15% of 80").arguments           # doctest: +SKIP
{'expression': '15 % of 80'}
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from understanding.answers import smalltalk_kind, without_courtesy
from understanding.arguments import extract_arguments
from understanding.arguments.heard import as_meant
from understanding.arguments.qualifiers import (
    contrasted,
    device_qualifiers,
    leaves_out_no_room,
)
from understanding.corrections import Correction, read_correction
from understanding.decision import RouteDecision, ToolCall
from understanding.errors import ModelFilesError
from understanding.gazetteer import country_clock, read_places, region_in
from understanding.policy import ACTION_TOOLS, Verdict, ask_back, check_call
from understanding.settings import Settings, complete_arguments
from understanding.structure import (
    compound_reason,
    joined_fragments,
    needs_reasoning,
    request_reason,
    trailing_remark,
)
from understanding.tools import TOOL_NAMES

if TYPE_CHECKING:
    from react_kernel import ToolSpec

DEFAULT_MODEL_DIR = Path(__file__).resolve().parent / "models" / "router"
ROUTER_CONFIG = "router.json"
SMALLTALK = "smalltalk"
OOS = "oos"
DEFAULT_THRESHOLD = 0.5
PLACE_TOOLS = frozenset({"get_weather", "world_clock"})
CLOCK = "world_clock"


class IntentPredictor(Protocol):
    """What the router needs from an intent model (``understanding.intents.IntentModel``)."""

    def predict(self, text: str) -> Any: ...


class Router:
    """Routes queries with an intent model, a threshold, structure checks and arguments."""

    def __init__(
        self,
        model: IntentPredictor,
        *,
        threshold: float = DEFAULT_THRESHOLD,
        tools: Iterable[ToolSpec] = (),
        action_threshold: float | None = None,
        one_request: bool = False,
    ) -> None:
        self.model = model
        self.threshold = threshold
        # A false timer or device command is worse than a trip to the cloud: the built-in
        # tools with side effects may need a higher confidence than lookups.
        self.action_threshold = threshold if action_threshold is None else action_threshold
        # The shipped router keeps one request on the device; the cloud plans compound ones.
        self.one_request = one_request
        self.tools: dict[str, ToolSpec] = {}
        for spec in tools:
            self.add_tool(spec)

    def add_tool(self, spec: ToolSpec) -> None:
        """Run ``spec`` on the device for the intent of the same name.

        Raises:
            understanding.tools.user.UserToolError: the name is taken, or it cannot run here.
        """
        from understanding.tools.user import UserToolError, check_tool

        check_tool(spec)
        if spec.name in self.tools:
            raise UserToolError(f"tool {spec.name!r} is already registered")
        self.tools[spec.name] = spec

    @classmethod
    def load(
        cls,
        model_dir: Path | str | None = None,
        *,
        precision: str | None = None,
        tools: Iterable[ToolSpec] = (),
        encoder: Any = None,
    ) -> Router:
        """Load the shipped router (or the one in ``model_dir``).

        Args:
            model_dir: A folder written by ``edge-agent train`` / ``scripts/build_router.py``.
            precision: Encoder precision override (``"int8"`` or ``"fp32"``), for benchmarks.
            tools: Your own device tools, for the intents of the same names.
            encoder: An ``understanding.encoder.Encoder`` to use instead of the package's
                (the benchmarks' FP32 reference, which is not shipped).

        Raises:
            ModelFilesError: The folder or its model cannot be loaded.
        """
        folder = Path(model_dir) if model_dir is not None else DEFAULT_MODEL_DIR
        if not folder.is_dir():
            raise ModelFilesError(f"router model not found: {folder} (run scripts/build_router.py)")
        from understanding.intents import IntentModel
        from understanding.slu.model import SluModel

        model: IntentPredictor
        try:
            if SluModel.is_model_dir(folder):
                model = SluModel.load(folder)
            elif precision is not None:
                model = IntentModel.load(folder, precision=precision, encoder=encoder)
            else:
                model = IntentModel.load(folder, encoder=encoder)
        except Exception as exc:  # the trainer's own error types; translated here
            raise ModelFilesError(f"cannot load router model from {folder}: {exc}") from exc
        threshold = DEFAULT_THRESHOLD
        action_threshold = None
        one_request = False
        config = folder / ROUTER_CONFIG
        if config.is_file():
            settings = json.loads(config.read_text("utf-8"))
            threshold = float(settings.get("threshold", threshold))
            if settings.get("action_threshold") is not None:
                action_threshold = float(settings["action_threshold"])
            one_request = bool(settings.get("one_request", False))
        return cls(
            model,
            threshold=threshold,
            tools=tools,
            action_threshold=action_threshold,
            one_request=one_request,
        )

    def decide(
        self, text: str, settings: Settings | None = None, *, one_request: bool | None = None
    ) -> RouteDecision:
        """Route one query; see the module docstring for the gates.

        ``settings``: the device's, whose home defaults fill what the query leaves out (the
        home city, the units); None for a device with none. ``one_request``: whether a
        compound query goes to the cloud (None: the router's own setting; False lets the
        device run each request of it, as it does with no cloud to plan it). Pure: the
        router itself never changes."""
        query = as_meant(text)  # misspelt qualifiers and rooms, homophones, favours
        if not query:
            return RouteDecision("cloud", None, None, 0.0, "empty query")
        fixed = read_correction(query)
        if fixed is not None:
            return self._corrected(fixed, settings, one_request)
        decided = self._decide(query, settings, one_request)
        unsure = decided.reason == OUT_OF_SCOPE or decided.reason.startswith("low confidence")
        remark = trailing_remark(query) if decided.route == "cloud" and unsure else None
        if remark is None:
            return decided
        # "what time is it in sydney, i want to ring my daughter": the request read alone.
        alone = self._decide(remark[0], settings, one_request)
        aside = replace(alone, reason=f"{alone.reason}; {remark[1]!r} set aside, a remark")
        return decided if alone.route == "cloud" else aside

    def _corrected(
        self, fixed: Correction, settings: Settings | None, one_request: bool | None
    ) -> RouteDecision:
        """The decision on the request as the person corrected it ("the kitchen light, no
        wait, the bedroom one"); a correction no rule places is the cloud's."""
        if fixed.text is None:
            reason = f"a self-correction ({fixed.said!r}) the device cannot place"
            return RouteDecision("cloud", None, None, 0.0, reason)
        decided = self._decide(fixed.text, settings, one_request)
        return replace(decided, reason=f"{decided.reason}; as corrected: {fixed.text!r}")

    def _decide(
        self, query: str, settings: Settings | None, one_request: bool | None
    ) -> RouteDecision:
        contrast = contrasted(query)
        if contrast is not None:
            decided = self._contrasted(query, *contrast, settings, one_request)
            if decided is not None:
                return decided
        # "weather in Cairo, Egypt" is "weather in Cairo" to the model and the structure
        # checks (the country is no second place); arguments read the words as written.
        plain = read_places(query).text
        prediction = self.model.predict(plain)
        intent = str(prediction.intent)
        confidence = float(prediction.confidence)
        scores = {str(k): float(v) for k, v in dict(getattr(prediction, "scores", {})).items()}

        def cloud(reason: str) -> RouteDecision:
            return RouteDecision("cloud", None, None, confidence, reason, intent, scores)

        if intent == OOS or not bool(getattr(prediction, "in_scope", True)):
            return cloud(OUT_OF_SCOPE)
        if confidence < self.threshold:
            return cloud(f"low confidence {confidence:.2f} < {self.threshold:.2f}")
        parts = getattr(prediction, "parts", None)
        if parts is None and intent in ACTION_TOOLS and confidence < self.action_threshold:
            bar = self.action_threshold
            return cloud(f"low confidence {confidence:.2f} < {bar:.2f} for {intent}")
        if parts is not None:  # each part meets its own floor (``_from_parts``)
            words = tuple(getattr(prediction, "words", ()))
            side_ok = bool(getattr(prediction, "side_effect_ok", True))
            alone = self.one_request if one_request is None else one_request
            return self._from_parts(
                parts, query, plain, confidence, scores, intent, words, side_ok,
                settings=settings, one_request=alone,
            )  # fmt: skip
        if intent == SMALLTALK:
            if smalltalk_kind(query) is None:
                return cloud("small talk the device has no answer for")
            return RouteDecision("edge", None, None, confidence, "small talk", intent, scores)
        if intent not in TOOL_NAMES:
            spec = self.tools.get(intent)
            if spec is None:
                return cloud(f"intent {intent!r} has no device tool")
            if spec.side_effects and not getattr(prediction, "side_effect_ok", True):
                # The model's floor for side effects, calibrated on the user's own
                # validation lines apart from the lookup threshold (understanding.intents).
                return cloud(f"below the side-effect floor for {intent}, a tool that acts")
            return self._user_tool(spec, query, plain, confidence, scores)
        if intent in PLACE_TOOLS and (place := _another_place(query)) is not None:
            return cloud(f"{place} is not a city the device knows")
        structural = compound_reason(plain, intent)
        if structural is not None:
            return cloud(structural)
        arguments = complete_arguments(settings, intent, query, extract_arguments(intent, query))
        if arguments is None:
            asked = ask_back(intent, "", words=query)
            if asked is not None:
                return self._refused(asked, intent, confidence, intent, scores)
            return cloud(f"cannot fill {intent} arguments")
        if intent == "device_control":
            arguments = {**arguments, **device_qualifiers(query)}
            if leaves_out_no_room(query, arguments):
                return cloud("an exception that names no room the device knows")
        verdict = check_call(intent, arguments, query, confidence, self.action_threshold)
        if verdict.action != "allow":
            return self._refused(verdict, intent, confidence, intent, scores)
        return RouteDecision(
            "edge", intent, arguments, confidence, f"one {intent} call", intent, scores
        )

    def _contrasted(
        self, query: str, negated: str, said: str, settings: Settings | None, alone: bool | None
    ) -> RouteDecision | None:
        """The decision on what the words say to do when they set it against what not
        to ("don't lock the door, just close the blinds"): the part said, read alone; a
        side effect of it runs only when the policy, over all the words, finds the
        negation another command's (``policy``). None: the words decide as usual."""
        decision = self.decide(said, settings, one_request=alone)
        if decision.route == "cloud" or decision.calls:
            return None
        tool = str(decision.tool) if decision.route == "edge" else ""
        if (
            tool in ACTION_TOOLS
            and check_call(tool, decision.arguments, query, 1, 0).action != "allow"
        ):
            return None
        return replace(decision, reason=f"{decision.reason}; not what {negated!r} rules out")

    def _refused(
        self,
        verdict: Verdict,
        tool: str,
        confidence: float,
        intent: str,
        scores: dict[str, float],
    ) -> RouteDecision:
        """The decision of a call the side-effect policy did not let run."""
        if verdict.action == "ask":
            return RouteDecision(
                "ask",
                tool,
                {},
                confidence,
                verdict.reason,
                intent,
                scores,
                missing=verdict.missing,
                question=verdict.question,
            )
        return RouteDecision("cloud", None, None, confidence, verdict.reason, intent, scores)

    def _user_tool(
        self,
        spec: ToolSpec,
        query: str,
        plain: str,
        confidence: float,
        scores: dict[str, float],
    ) -> RouteDecision:
        """The decision for an intent served by one of the user's tools (gates 3 and 4)."""
        from understanding.arguments.schema import fill_from_schema, filler_of

        def cloud(reason: str) -> RouteDecision:
            return RouteDecision("cloud", None, None, confidence, reason, spec.name, scores)

        properties = dict(spec.input_schema.get("properties") or {})
        takes_city = any(filler_of(n, s) == "city" for n, s in properties.items())
        if takes_city and (place := _another_place(query)) is not None:
            return cloud(f"{place} is not a city the device knows")
        structural = compound_reason(plain, spec.name)
        if structural is not None:
            return cloud(structural)
        filled = fill_from_schema(spec.input_schema, query, spec.validator)
        if filled.arguments is None:
            return cloud(f"cannot fill {spec.name} arguments: {filled.reason}")
        return RouteDecision(
            "edge",
            spec.name,
            filled.arguments,
            confidence,
            f"one {spec.name} call (your tool)",
            spec.name,
            scores,
        )

    def _from_parts(
        self,
        parts: Any,
        query: str,
        plain: str,
        confidence: float,
        scores: dict[str, float],
        intent: str,
        words: tuple[str, ...] = (),
        side_effect_ok: bool = True,
        *,
        settings: Settings | None = None,
        one_request: bool = False,
    ) -> RouteDecision:
        """The decision of a joint intent + slot model: every request it found, each
        with its tool and its arguments from its slots (``understanding.arguments.slots``
        for your tools, ``understanding.arguments.builtin_slots`` for the built-in ones)."""
        from understanding.arguments.slots import fill_from_slots

        def cloud(reason: str) -> RouteDecision:
            return RouteDecision("cloud", None, None, confidence, reason, intent, scores)

        parts = joined_fragments(without_courtesy(parts, SMALLTALK))  # "hello, | ..."; "at | 6:45"
        if one_request and len(parts) > 1:
            return cloud(f"{len(parts)} requests in one query: the cloud plans them")
        calls: list[ToolCall] = []
        for part in parts:
            name = str(part.intent)
            bar = self.action_threshold if name in ACTION_TOOLS else self.threshold
            if float(part.confidence) < bar:
                unsure = self._below_the_floor(name, part, query, words, settings, len(parts))
                if unsure is not None:
                    return replace(unsure, confidence=confidence, intent=intent, scores=scores)
                return cloud(f"low confidence {part.confidence:.2f} for {name}")
            if name == SMALLTALK:
                if len(parts) == 1 and smalltalk_kind(query) is not None:
                    return RouteDecision(
                        "edge", None, None, confidence, "small talk", intent, scores
                    )
                return cloud("small talk the device has no answer for")
            spec = self.tools.get(name)
            if spec is not None and spec.side_effects and not side_effect_ok:
                return cloud(f"below the side-effect floor for {name}, a tool that acts")
            if spec is not None:
                filled = fill_from_slots(spec.input_schema, part.slots, spec.validator)
                if filled.arguments is None:
                    return cloud(f"cannot fill {name} arguments: {filled.reason}")
                calls.append(ToolCall(name, filled.arguments))
                continue
            if name not in TOOL_NAMES:
                return cloud(f"intent {name!r} has no device tool")
            text = str(part.text) if len(parts) > 1 else query
            # "Tokyo, Japan": the region qualifies the city (as on the frozen-heads path).
            place = _another_place(text) if name in PLACE_TOOLS else None
            if place is not None and not (name == CLOCK and country_clock(place) is not None):
                # A country the clock reads on its own ("time in india") is the filler's:
                # one clock answers, several zones are refused by name.
                return cloud(f"{place} is not a city the device knows")
            # A scheduled or conditional device command is the side-effect policy's to
            # read or refuse (its qualifiers); comparisons and advice stay the cloud's.
            structural = (
                ("needs reasoning: comparison or advice on top of the tool" if
                 needs_reasoning(read_places(text).text, name) else None)
                if name == "device_control"
                else request_reason(read_places(text).text, name)
            )  # fmt: skip
            if structural is not None:
                return cloud(structural)
            made = self._part_calls(name, part, text, words, settings)
            if isinstance(made, Verdict):
                return self._refused(made, name, confidence, intent, scores)
            calls.extend(made)
        if not calls:
            return cloud("no request the device can run")
        first = calls[0]
        names = [c.tool for c in calls]
        yours = "" if first.tool in TOOL_NAMES else " (your tool)"
        reason = (
            f"one {first.tool} call{yours}"
            if len(calls) == 1
            else f"{len(calls)} calls: " + ", ".join(names)
        )
        return RouteDecision(
            "edge",
            first.tool,
            first.arguments,
            confidence,
            reason,
            intent,
            scores,
            tuple(calls) if len(calls) > 1 else (),
        )

    def _below_the_floor(
        self,
        name: str,
        part: Any,
        query: str,
        words: tuple[str, ...],
        settings: Settings | None,
        count: int,
    ) -> RouteDecision | None:
        """What a lone request under the side-effect floor may still do: the floor guards
        side effects, and asking back ("remind you of what?") or reading a device's state
        runs none. None: nothing but the cloud (the request would act, or the model is not
        even sure enough for a lookup)."""
        if count != 1 or name not in ACTION_TOOLS or float(part.confidence) < self.threshold:
            return None
        made = self._part_calls(name, part, query, words, settings, floor=0.0)
        confidence = float(part.confidence)
        if isinstance(made, Verdict):
            if made.action != "ask":
                return None
            return self._refused(made, name, confidence, name, {})
        if made and all(call.tool not in ACTION_TOOLS for call in made):
            return RouteDecision(
                "edge", made[0].tool, made[0].arguments, confidence,
                f"one {made[0].tool} call (a read, under the side-effect floor)", name, {},
                tuple(made) if len(made) > 1 else (),
            )  # fmt: skip
        return None

    def _part_calls(
        self,
        name: str,
        part: Any,
        text: str,
        words: tuple[str, ...],
        settings: Settings | None,
        *,
        floor: float | None = None,
    ) -> list[ToolCall] | Verdict:
        """One request's calls (several list items are several calls), each through the
        side-effect policy; or the policy's verdict against them."""
        from understanding.arguments.bare_hours import ambiguous_hour
        from understanding.arguments.builtin_slots import builtin_from_slots
        from understanding.arguments.newer_tools import (
            item_calls,
            known_list,
            names_a_device,
            newer_from_slots,
        )
        from understanding.arguments.qualifiers import (
            is_question,
            is_status_question,
            without_times,
        )
        from understanding.arguments.timer_labels import timer_label

        confidence = float(part.confidence)
        floor = self.action_threshold if floor is None else floor
        if name == "device_control" and is_question(text):
            if not is_status_question(text):
                return Verdict("cloud", "a question about a device is no command")
            name = "device_status"  # "is the plug on?" asks; it commands nothing
        elif name == "device_status" and not is_status_question(text):
            # "is it bad to leave the tv on standby", "does the tv use much power": about a
            # device, but no state it keeps.
            return Verdict("cloud", "a question about a device that asks for no state it keeps")
        slots, said = part.slots, text
        qualified: dict[str, Any] = {}
        if name == "device_control":
            # "at 11 pm", "for 2 hours" are the command's time, never its level; the rooms
            # left out of "all" are no room of the command.
            qualified = device_qualifiers(text)
            slots = [
                s
                for s in slots
                if s.type not in ("time", "date", "timeofday")
                and not (s.type == "house_place" and _left_out(s.value, qualified))
            ]
            said = without_times(text)
        filled = newer_from_slots(name, slots, said) or builtin_from_slots(
            name, slots, said, settings, utterance=words
        )
        if filled.arguments is None:
            reason = filled.reason
            if name == "device_control" and not names_a_device(said):
                reason = "no device named: the required argument 'device'"
            elif name == "device_control" and _BARE_SET.fullmatch(said):
                reason = "no level named: the required argument 'value'"
            first = check_call(name, {}, text, confidence, floor)
            asked = ask_back(name, reason, words=text) if first.action == "allow" else None
            if asked is not None:
                return asked
            if first.action != "allow":
                return first
            return Verdict("cloud", f"cannot fill {name} arguments: {filled.reason}")
        args = dict(filled.arguments)
        if name == "device_control":
            args.update(qualified)
            if leaves_out_no_room(text, args):  # "everything but the TV": a device left out
                return Verdict("cloud", "an exception that names no room the device knows")
        label = timer_label(text) if name == "set_timer" else None
        # The reminder's words, whole: the tagger may keep only part of them.
        if label is not None and (not args.get("label") or str(args["label"]).lower() in label):
            args["label"] = label
        if args.get("list") and name in ("add_note", "remove_note", "search_notes"):
            args["list"] = known_list(str(args["list"]))
        listed = name in ("add_note", "remove_note")
        every = item_calls(args, part.slots, words) if listed else [args]
        items = [str(one.get("text", "")) for one in every]
        for one in every:
            verdict = check_call(name, one, text, confidence, floor, kept=items)
            if verdict.action != "allow":
                return verdict
        timed = name == "device_control" or (name == "set_timer" and "label" in args)
        if timed and "at" in args and ambiguous_hour(text):
            # A command or a reminder at "three" or "half six": morning or evening is a
            # guess (an alarm is the morning's, as people set them).
            # After the policy: a recurring or conditional one is the cloud's, not asked.
            return Verdict("ask", "a bare hour: morning or evening", "at",
                           "At what time: morning or evening?")  # fmt: skip
        return [ToolCall(name, one) for one in every]


OUT_OF_SCOPE = "out of the device's scope"
_BARE_SET = re.compile(r"(?:please )?set (?:the |my )?\w+")


def _left_out(span: str, qualified: dict[str, Any]) -> bool:
    """A room slot of a command over every room: one of the rooms left out, or no room of
    its own ("every room")."""
    from understanding.arguments.devices import room_name

    if qualified.get("room") != "all":
        return False
    room = room_name(span)
    return room is None or room in qualified.get("except", ()) or room in ("room", "rooms")


def _another_place(query: str) -> str | None:
    """A place the query names that is none of the device's cities: a known name in a
    region with no city of the name ("Paris, Nevada", "NYC, Texas"), or a country or region
    of its own ("Hong Kong or Texas"). A region that confirms a city or picks one of its
    name ("Cairo, Egypt", "Paris, Texas") is neither."""
    reading = read_places(query)
    return reading.unknown or region_in(reading.text)
