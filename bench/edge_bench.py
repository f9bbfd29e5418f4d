"""Edge benchmark: the INT8 router against FP32, side by side, and a cold ``edge-agent ask``.

Prints, for each encoder precision: the decision's p50/p95 (encoder + heads + argument
filling, one thread) on short and long queries, an end-to-end simple query's p50
(decision + tool + answer, through the kernel loop and memory), the model's size and
the route accuracy on the dev set; then the peak RSS of an ``edge-agent ask``
subprocess, the median wall time of a cold ``edge-agent ask`` (a new process each time:
imports, model loading and the answer; ``cold_ask_s``) and the INT8/FP32 ratios. The last
line is one JSON object:
``{"int8": {...}, "fp32": {...} | null, "ask_peak_rss_mb": N, "cold_ask_s": S, ...}``.

The FP32 encoder is the reference and is not shipped: it is read from
``build/encoder-fp32`` and, when missing, built there by ``scripts/build_encoder.sh
--fp32-only`` (``--fp32 build``, the default when the build venv ``.venv-build`` exists) or
skipped with a line that says so (``--fp32 skip``, or no build venv).

Queries are all distinct (the encoder keeps an LRU cache of embeddings, so repeating a
query would time the cache, not the model).

``decision_over_encoder`` (target <= 1.25) compares the INT8 decision with the bare INT8
encoder (``Encoder.embed``: tokenise, one ``session.run``, no cache) on the same queries,
timed in pairs: for each query both run back to back, in alternating order, after a
warm-up of both, and the figure is the ratio of the two medians. A machine whose load
moves (other jobs, a training) then slows both sides of a pair alike, where two blocks
timed one after the other could catch different loads. ``decision_over_network`` is the
stricter ratio of the same decisions over the router's own network alone (its word
pieces and ``session.run``, timed in the same pairs): what the decision spends beyond
the ONNX run (decoding, places, arguments).

Usage: ``python bench/edge_bench.py [--dev examples/edge_dev.jsonl] [--n 300]
[--fp32 auto|build|skip] [--cold-runs 7]``
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DEV = ROOT / "examples" / "edge_dev.jsonl"
ENCODER_DIRS = {
    "int8": ROOT / "understanding" / "models" / "encoder",
    "fp32": ROOT / "build" / "encoder-fp32",  # the reference, not shipped
}
ROUTER_DIR = ROOT / "understanding" / "models" / "router"
ENCODER_FILES = {"int8": "model_int8.onnx", "fp32": "model_fp32.onnx"}
COLD_QUERY = "what's 15% of 80"
WARM_UP = 20  # queries each side of the timed pairs runs first (not among them)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    rank = q * (len(ordered) - 1)
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def queries(n: int) -> tuple[list[str], list[str], list[str], list[str]]:
    """Distinct queries from the router's validation set: a natural mix (the decision
    figures), short ones (<= 8 words), long ones (>= 14 words, padded with context) and a
    few to warm up on (from the end of the set, not among the mix)."""
    from understanding.slu.data import parse_inline

    # The lines mark their slots inline ("[place_name : lisbon]"): the words as said.
    texts = [
        " ".join(parse_inline(json.loads(line)["text"])[0])
        for line in (ROOT / "understanding" / "data" / "router_val.jsonl").read_text().splitlines()
    ]
    mixed = texts[: 2 * n]
    short = [t for t in texts if len(t.split()) <= 8][:n]
    long_ = [t for t in texts if len(t.split()) >= 14]
    padding = " — I'm asking because we have friends over tonight and I want to be ready"
    long_ += [t + padding for t in texts if len(t.split()) < 14]
    return mixed, short, long_[:n], texts[-WARM_UP:]


CPU_MS: list[float] = []  # CPU time of each timed decision (see time_decisions)


def time_decisions(router: object, texts: list[str]) -> list[float]:
    """Wall-clock ms per decision; the CPU ms go to CPU_MS.

    The process's CPU time does not count the time the scheduler gives other jobs, so on
    a busy machine it shows what one decision costs on one free core.
    """
    decide = router.decide  # type: ignore[attr-defined]
    times = []
    for text in texts:
        start, cpu = time.perf_counter(), time.process_time()
        decide(text)
        times.append((time.perf_counter() - start) * 1000)
        CPU_MS.append((time.process_time() - cpu) * 1000)
    return times


def e2e(router: object, n: int) -> list[float]:
    from edge_agent.agent import EdgeAgent
    from sync.store import MemoryStore

    with tempfile.TemporaryDirectory() as folder:
        store = MemoryStore(Path(folder) / "edge.db")
        agent = EdgeAgent(store, router)  # type: ignore[arg-type]
        times = []
        for i in range(n):
            query = f"what is {17 + i} times {3 + i % 11}"
            start = time.perf_counter()
            steps = list(agent.ask(query))
            times.append((time.perf_counter() - start) * 1000)
            assert steps[-1].content.endswith(".")
        store.close()
    return times


def size_mb(precision: str) -> float:
    heads = sum(p.stat().st_size for p in ROUTER_DIR.rglob("*") if p.is_file())
    encoder = (ENCODER_DIRS[precision] / ENCODER_FILES[precision]).stat().st_size
    return round((encoder + heads) / 1e6, 2)


def ask_peak_rss_mb() -> float:
    """Peak RSS of one ``edge-agent ask`` subprocess (the only child this process waits on)."""
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(
            [sys.executable, "-m", "edge_agent", "ask", "what is 2 plus 2",
             "--memory", str(Path(folder) / "edge.db")],
            check=True,
            capture_output=True,
        )  # fmt: skip
    return round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)


def cold_ask_s(runs: int) -> tuple[float, float]:
    """Median wall and CPU seconds of ``edge-agent ask`` in a new process, as a user runs
    it (byte-code cached by a first, untimed run; a fresh memory file each time)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    command = [str(Path(sys.executable).with_name("edge-agent")), "ask", COLD_QUERY]
    walls, cpus = [], []
    with tempfile.TemporaryDirectory() as folder:
        for run in range(runs + 1):
            memory = ["--memory", str(Path(folder) / f"edge{run}.db")]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run([*command, *memory], check=True, capture_output=True, env=env)
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if run:  # the first run writes the byte-code caches
                walls.append(wall)
                cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return round(statistics.median(walls), 3), round(statistics.median(cpus), 3)


def fp32_encoder(mode: str) -> object | None:
    """The FP32 reference encoder: built when missing and allowed, else None (skipped)."""
    from understanding.encoder import Encoder

    folder = ENCODER_DIRS["fp32"]
    if not (folder / ENCODER_FILES["fp32"]).is_file():
        if mode == "auto":
            mode = "build" if (ROOT / ".venv-build" / "bin" / "python").exists() else "skip"
        if mode == "skip":
            print(f"fp32: skipped: {folder} holds no model (build it with "
                  "`scripts/build_encoder.sh --fp32-only`, or pass --fp32 build)")  # fmt: skip
            return None
        print("fp32: building the reference with scripts/build_encoder.sh --fp32-only", flush=True)
        subprocess.run([str(ROOT / "scripts" / "build_encoder.sh"), "--fp32-only"], check=True)
    return Encoder.load(folder, precision="fp32")


class Paired(NamedTuple):
    """Per side of the timed pairs (see :func:`paired_ms`): wall-clock and CPU ms."""

    wall: dict[str, list[float]]
    cpu: dict[str, list[float]]


def paired_ms(router: object, texts: list[str], warm_up: list[str]) -> Paired:
    """Wall-clock and CPU ms of the decision (``"decision"``), the bare INT8 encoder
    (``"encoder"``: ``Encoder.embed``, no cache) and, for a joint router, its own network
    alone (``"network"``: word pieces + ``session.run``), each query timed by all of them
    back to back, the order alternating from query to query; the decisions' CPU ms also go
    to CPU_MS. (CPU time leaves out the time the scheduler gives other jobs: on a loaded
    machine the CPU ratio is the steadier one.)"""
    from understanding.encoder import Encoder
    from understanding.slu.data import split_words

    encoder = Encoder.load(cache_size=0)
    decide = router.decide  # type: ignore[attr-defined]
    logits = getattr(router.model, "logits", None)  # type: ignore[attr-defined]
    sides: list[tuple[str, Any]] = [("decision", decide), ("encoder", encoder.embed)]
    if logits is not None:
        sides.append(("network", lambda text: logits(split_words(text))))
    for text in warm_up:
        for _, run in sides:
            run(text)
    paired = Paired({name: [] for name, _ in sides}, {name: [] for name, _ in sides})
    for i, text in enumerate(texts):
        for name, run in sides if i % 2 == 0 else sides[::-1]:
            start, cpu = time.perf_counter(), time.process_time()
            run(text)
            paired.wall[name].append((time.perf_counter() - start) * 1000)
            paired.cpu[name].append((time.process_time() - cpu) * 1000)
    CPU_MS.extend(paired.cpu["decision"])
    return paired


def load_router(precision: str, encoder: object | None) -> object:
    from understanding.router import Router

    return Router.load(encoder=encoder) if precision == "fp32" else Router.load()


def bench(
    precision: str, dev: Path | None, n: int, encoder: object | None = None
) -> dict[str, float]:
    from edge_agent.evaluation import load_cases, run_eval
    from understanding.gazetteer import read_places

    router = load_router(precision, encoder)
    mixed, short, long_, warm_up = queries(n)
    router.decide("warm up the session")  # type: ignore[attr-defined]
    CPU_MS.clear()
    paired = None
    if precision == "int8":
        paired = paired_ms(router, mixed, warm_up)
        both = paired.wall["decision"]
    else:
        both = time_decisions(router, mixed)
    cpu_ms = list(CPU_MS)
    if encoder is not None:
        encoder._cache.clear()  # type: ignore[attr-defined]
    # The classes share queries with the mix: what a decision caches of its text goes too.
    getattr(read_places, "cache_clear", lambda: None)()  # (not cached before issue 12's bench)
    router = load_router(precision, encoder)  # a fresh embedding cache for each class
    router.decide("warm up the session")  # type: ignore[attr-defined]
    short_ms = time_decisions(router, short)
    long_ms = time_decisions(router, long_)
    e2e_ms = e2e(router, max(50, n // 4))
    accuracy = run_eval(router, load_cases(dev)).metrics["route_accuracy"] if dev else None  # type: ignore[arg-type]
    figures = {
        "decision_p50_ms": round(statistics.median(both), 3),
        "decision_p95_ms": round(percentile(both, 0.95), 3),
        "decision_cpu_p50_ms": round(statistics.median(cpu_ms), 3),
        "decision_cpu_p95_ms": round(percentile(cpu_ms, 0.95), 3),
        "short_p50_ms": round(statistics.median(short_ms), 3),
        "short_p95_ms": round(percentile(short_ms, 0.95), 3),
        "long_p50_ms": round(statistics.median(long_ms), 3),
        "long_p95_ms": round(percentile(long_ms, 0.95), 3),
        "e2e_p50_ms": round(statistics.median(e2e_ms), 3),
        **(_ratios(paired) if paired is not None else {}),
        "size_mb": size_mb(precision),
        "route_accuracy": accuracy,
    }
    return figures  # type: ignore[return-value]


def _ratios(paired: Paired) -> dict[str, float]:
    """The bare encoder's and the network's p50s, and the decision's over them: wall-clock
    (``decision_over_encoder``, the target's figure) and CPU (``..._cpu``)."""

    def p50(times: list[float]) -> float:
        return statistics.median(times)

    figures = {"encoder_p50_ms": round(p50(paired.wall["encoder"]), 3)}
    if "network" in paired.wall:
        figures["network_p50_ms"] = round(p50(paired.wall["network"]), 3)
    for other in ("encoder", "network"):
        if other in paired.wall:
            for clock, times in (("", paired.wall), ("_cpu", paired.cpu)):
                ratio = p50(times["decision"]) / p50(times[other])
                figures[f"decision_over_{other}{clock}"] = round(ratio, 3)
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dev", type=Path, default=DEFAULT_DEV, help="eval file for accuracy")
    parser.add_argument("--n", type=int, default=300, help="queries per length class")
    parser.add_argument(
        "--fp32",
        choices=("auto", "build", "skip"),
        default="auto",
        help="the FP32 reference: build it when missing, or skip it (auto: build when "
        ".venv-build exists)",
    )
    parser.add_argument("--cold-runs", type=int, default=7, help="timed cold asks (median)")
    args = parser.parse_args()
    dev = args.dev if args.dev.is_file() else None
    rss = ask_peak_rss_mb()  # first, so no other child inflates RUSAGE_CHILDREN
    cold_wall, cold_cpu = cold_ask_s(args.cold_runs)
    encoder = fp32_encoder(args.fp32)
    results: dict[str, dict[str, float] | None] = {
        "int8": bench("int8", dev, args.n),
        "fp32": bench("fp32", dev, args.n, encoder) if encoder is not None else None,
    }
    int8, fp32 = results["int8"], results["fp32"]
    assert int8 is not None
    print(f"{'figure':<18}{'int8':>12}{'fp32':>12}{'int8/fp32':>12}")
    for key in int8:
        a, b = int8[key], (fp32 or {}).get(key, "-")
        ratio = (
            f"{a / b:.2f}"
            if isinstance(a, int | float) and isinstance(b, int | float) and b
            else "-"
        )
        print(f"{key:<18}{a!s:>12}{b!s:>12}{ratio:>12}")
    print(f"edge-agent ask peak RSS: {rss} MB (target <= 150)")
    print(f"cold edge-agent ask {COLD_QUERY!r}: {cold_wall} s wall, {cold_cpu} s CPU "
          f"(median of {args.cold_runs}; target <= 0.6 s wall)")  # fmt: skip
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"machine: {os.cpu_count()} CPUs, load average {load} (timings inflate under load)")
    print(f"INT8 decision p50 target <= 3 ms: {int8['decision_p50_ms']} ms")
    print(
        f"INT8 decision p50 over the bare INT8 encoder's on the same queries, timed in pairs "
        f"(target <= 1.25): {int8.get('decision_over_encoder')} (CPU time: "
        f"{int8.get('decision_over_encoder_cpu')}); over the router's own network alone: "
        f"{int8.get('decision_over_network')} (CPU time: {int8.get('decision_over_network_cpu')})"
    )
    ratios = {
        key: round(int8[key] / fp32[key], 3)
        for key in ("decision_p50_ms", "decision_p95_ms", "e2e_p50_ms", "size_mb")
        if fp32 and fp32[key]
    }
    figures = {**results, "ask_peak_rss_mb": rss, "cold_ask_s": cold_wall}
    print(json.dumps({**figures, "cold_ask_cpu_s": cold_cpu, "int8_over_fp32": ratios}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
