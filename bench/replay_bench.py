"""Replay cost: harness cassettes (indexed) vs plain vcrpy vs an in-process fake.

Run: ``python bench/replay_bench.py``. Records cassettes of 1, 100 and 1,000
interactions against the local simulator (loopback only) in a temp dir, then
measures the cost per LLM call when replaying them, and the load time. An LLM
call is ``provider.complete(request)``, as in the ScriptedProvider row: here
``OpenAIProvider`` over the real openai SDK, whose HTTP vcrpy intercepts.

A Responses API row does the same with ``OpenAIResponsesProvider`` (``POST
/v1/responses``) at 1,000 interactions, and a Gemini row with ``GeminiProvider``
over the google-genai SDK (``POST /v1beta/models/{model}:generateContent``).

Targets: replay at 1,000 interactions < 2 ms per call (Chat Completions,
Responses and Gemini alike) and >= 10x faster than plain vcrpy with body matching at that
size; loading 1,000 interactions < 100 ms.
"""

from __future__ import annotations

import contextlib
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import httpx2
import openai
import vcr

from harness.core import LLMRequest, Message
from harness.providers import OpenAIProvider, OpenAIResponsesProvider
from harness.recording import use_cassette
from harness.simulator import SimulatorServer
from harness.wires.gemini import GeminiProvider

SIZES = (1, 100, 1000)
VCR_SAMPLE = 40  # plain vcrpy at 1,000 costs tens of ms per call: sample evenly
REPEATS = 3
SYSTEM = "You are a careful assistant. Answer briefly and cite the file you read. " * 6
ANSWER = "The answer is in notes.txt: the build passes and SENTINEL-OK was found. " * 3
SCRIPT = {"version": 1, "rules": [{"reply": ANSWER}]}
VCR_MATCH_ON = ("method", "scheme", "host", "port", "path", "query", "body")


def request(i: int) -> LLMRequest:
    """The request of interaction ``i``: a system prompt and a distinct question."""
    messages = (Message.system(SYSTEM), Message.user(f"Question {i}: what is {i} squared?"))
    return LLMRequest(messages=messages, model="gpt-4o-mini")


REQUESTS = [request(i) for i in range(max(SIZES))]


Provider = OpenAIProvider | OpenAIResponsesProvider


@contextlib.contextmanager
def client(
    base_url: str, http: httpx2.Client | None = None, *, responses: bool = False
) -> Iterator[Provider]:
    """An OpenAIProvider (or the Responses API one) on an SDK client without retries."""
    with openai.OpenAI(
        api_key="sk-bench", base_url=base_url, max_retries=0, http_client=http or httpx2.Client()
    ) as sdk:
        adapter = OpenAIResponsesProvider if responses else OpenAIProvider
        yield adapter("gpt-4o-mini", client=sdk)


def call(provider: Provider, i: int) -> None:
    """One LLM call for interaction ``i``."""
    assert provider.complete(REQUESTS[i]).text == ANSWER


def record(directory: Path) -> tuple[str, dict[int, Path], float]:
    """Record one cassette per size; returns the base URL, paths, and seconds per recorded call."""
    paths = {size: directory / f"replay-{size}.yaml" for size in SIZES}
    with SimulatorServer(SCRIPT) as sim, client(f"{sim.url}/v1") as provider:
        started = time.perf_counter()
        for size, path in paths.items():
            with use_cassette(path, record_mode="once"):
                for i in range(size):
                    call(provider, i)
        per_call = (time.perf_counter() - started) / sum(SIZES)
    # Simulator recordings are stored under the real API host, so replays (harness
    # and plain vcrpy alike) use the SDK's default base URL, as harness does.
    return "https://api.openai.com/v1", paths, per_call


class Cost(NamedTuple):
    """Seconds per call: wall clock, and CPU time of this process (steadier on a busy host)."""

    wall: float
    cpu: float


def timed_sessions(
    sessions: int, open_session: Callable[[], Any], calls: list[int], provider: Provider
) -> Cost:
    """Median over ``sessions`` of the cost per call made inside one session."""
    walls, cpus = [], []
    for _ in range(sessions):
        with open_session():
            wall, cpu = time.perf_counter(), time.process_time()
            for i in calls:
                call(provider, i)
            walls.append((time.perf_counter() - wall) / len(calls))
            cpus.append((time.process_time() - cpu) / len(calls))
    return Cost(statistics.median(walls), statistics.median(cpus))


def fake_transport() -> httpx2.MockTransport:
    """An in-process transport answering every call as the simulator did (no vcrpy)."""
    body = json.dumps(
        {
            "id": "chatcmpl-x",
            "object": "chat.completion",
            "created": 0,
            "model": "gpt-4o-mini",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": ANSWER},
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
    ).encode()
    return httpx2.MockTransport(
        lambda request: httpx2.Response(
            200, content=body, headers={"content-type": "application/json"}
        )
    )


def fake_versus_replay(base_url: str, path: Path) -> tuple[Cost, Cost]:
    """Seconds per call through a fake transport (no vcrpy) and replaying ``path``.

    Sessions of the two alternate, so a slow spell of the machine (the SDK's own
    share varies by half here) hits both alike.
    """
    fake: list[Cost] = []
    replay: list[Cost] = []
    calls = list(range(1000))
    with (
        client(base_url, httpx2.Client(transport=fake_transport())) as bare,
        client(base_url) as provider,
    ):
        for _ in range(REPEATS * 2 + 1):
            fake.append(timed_sessions(1, contextlib.nullcontext, calls, bare))
            replay.append(timed_sessions(1, lambda: use_cassette(path), calls, provider))
    return _median(fake), _median(replay)


def _median(costs: list[Cost]) -> Cost:
    return Cost(statistics.median(c.wall for c in costs), statistics.median(c.cpu for c in costs))


def scripted_cost() -> Cost:
    """Seconds per call through ScriptedProvider: the cost of not using HTTP at all."""
    from harness.core import LLMRequest, Message
    from harness.providers import ScriptedProvider

    request = LLMRequest(messages=(Message.user("hello"),))
    walls, cpus = [], []
    for _ in range(REPEATS):
        provider = ScriptedProvider([ANSWER] * 300)
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(300):
            provider.complete(request)
        walls.append((time.perf_counter() - wall) / 300)
        cpus.append((time.process_time() - cpu) / 300)
    return Cost(statistics.median(walls), statistics.median(cpus))


def harness_replay(base_url: str, path: Path, size: int) -> Cost:
    """Seconds per call replaying every interaction of ``path`` with harness."""
    sessions = REPEATS if size > 1 else 60
    with client(base_url) as provider:
        return timed_sessions(sessions, lambda: use_cassette(path), list(range(size)), provider)


def vcrpy_replay(base_url: str, path: Path, size: int) -> Cost:
    """Seconds per call replaying ``path`` with plain vcrpy and its body matcher."""
    step = max(1, size // VCR_SAMPLE)
    sample = list(range(0, size, step))[:VCR_SAMPLE]
    recorder = vcr.VCR(match_on=VCR_MATCH_ON, record_mode="none")
    sessions = REPEATS if size > 1 else 60
    with client(base_url) as provider:
        return timed_sessions(sessions, lambda: recorder.use_cassette(str(path)), sample, provider)


def responses_replay(directory: Path) -> Cost:
    """Record 1,000 Responses API calls against the simulator; seconds per replayed call."""
    path = directory / "responses-1000.yaml"
    size = SIZES[-1]
    with (
        SimulatorServer(SCRIPT) as sim,
        client(f"{sim.url}/v1", responses=True) as provider,
        use_cassette(path, record_mode="once"),
    ):
        for i in range(size):
            call(provider, i)
    with client("https://api.openai.com/v1", responses=True) as provider:
        return timed_sessions(REPEATS, lambda: use_cassette(path), list(range(size)), provider)


def gemini_replay(directory: Path) -> Cost:
    """Record 1,000 Gemini calls against the simulator; seconds per replayed call."""
    path = directory / "gemini-1000.yaml"
    size = SIZES[-1]

    def provider(base_url: str | None) -> GeminiProvider:
        return GeminiProvider(
            "gemini-2.5-flash", api_key="AIza-bench", base_url=base_url, max_retries=0
        )

    requests = [r.model_copy(update={"model": None}) for r in REQUESTS[:size]]
    with (
        SimulatorServer(SCRIPT) as sim,
        provider(sim.url) as gemini,
        use_cassette(path, record_mode="once"),
    ):
        for one in requests:
            assert gemini.complete(one).text == ANSWER
    walls, cpus = [], []
    with provider(None) as gemini:  # the SDK's default host: the replay answers it
        for _ in range(REPEATS):
            with use_cassette(path):
                wall, cpu = time.perf_counter(), time.process_time()
                for one in requests:
                    assert gemini.complete(one).text == ANSWER
                walls.append((time.perf_counter() - wall) / size)
                cpus.append((time.process_time() - cpu) / size)
    return Cost(statistics.median(walls), statistics.median(cpus))


def load_time(path: Path) -> tuple[float, float]:
    """Seconds to enter and leave a session on ``path``: harness, then plain vcrpy."""
    times: dict[str, list[float]] = {"harness": [], "vcrpy": []}
    for _ in range(REPEATS):
        started = time.perf_counter()
        with use_cassette(path):
            pass
        times["harness"].append(time.perf_counter() - started)
        started = time.perf_counter()
        with vcr.use_cassette(str(path), record_mode="none"):
            pass
        times["vcrpy"].append(time.perf_counter() - started)
    return min(times["harness"]), min(times["vcrpy"])


def report(
    scripted: Cost,
    fake: Cost,
    rows: list[tuple[int, Cost, Cost]],
    loads: tuple[float, float],
    responses: Cost,
    gemini: Cost,
) -> bool:
    """Print the results side by side; True when every target is met."""
    ms = 1000.0
    print(f"ScriptedProvider: {scripted.wall * ms:.4f} ms/call wall, {scripted.cpu * ms:.4f} CPU")
    print(
        f"OpenAIProvider and SDK, in-process fake transport (sessions alternating with the 1,000 "
        f"replay): {fake.wall * ms:.3f} ms/call wall, {fake.cpu * ms:.3f} ms/call CPU\n"
    )
    header = f"{'harness wall / CPU':>20} | {'plain vcrpy wall / CPU':>24}"
    print(f"{'interactions':>12} | {header} | speed-up")
    print(f"{'-' * 12}-+-{'-' * 20}-+-{'-' * 24}-+---------")
    for size, ours, theirs in rows:
        speedup = theirs.wall / ours.wall
        print(
            f"{size:>12} | {ours.wall * ms:>7.3f} / {ours.cpu * ms:>6.3f} ms | "
            f"{theirs.wall * ms:>9.3f} / {theirs.cpu * ms:>8.3f} ms | {speedup:>7.1f}x"
        )
    print(
        f"{'Responses 1000':>14} | {responses.wall * ms:>7.3f} / {responses.cpu * ms:>6.3f} ms"
        " | (OpenAIResponsesProvider, POST /v1/responses)"
    )
    print(
        f"{'Gemini 1000':>14} | {gemini.wall * ms:>7.3f} / {gemini.cpu * ms:>6.3f} ms"
        " | (GeminiProvider, google-genai, POST /v1beta/models/...:generateContent)"
    )
    load, vcr_load = loads
    print(
        f"\nload 1,000 interactions: harness {load * ms:.1f} ms, plain vcrpy {vcr_load * ms:.1f} ms"
    )
    ours, theirs = rows[-1][1], rows[-1][2]
    checks = {
        "replay at 1,000 < 2 ms/call (wall)": ours.wall < 0.002,
        "Responses API replay at 1,000 < 2 ms/call (wall)": responses.wall < 0.002,
        "Gemini replay at 1,000 < 2 ms/call (wall)": gemini.wall < 0.002,
        "replay at 1,000 >= 10x faster than plain vcrpy (wall)": theirs.wall / ours.wall >= 10,
        "load of 1,000 < 100 ms": load < 0.1,
    }
    overhead = (ours.wall - fake.wall) * ms, (ours.cpu - fake.cpu) * ms
    print(
        f"harness overhead over the fake at 1,000: {overhead[0]:.3f} ms/call wall, "
        f"{overhead[1]:.3f} ms/call CPU\n"
    )
    for name, ok in checks.items():
        print(f"{'PASS' if ok else 'FAIL'}  {name}")
    return all(checks.values())


def main() -> int:
    """Record, replay, print one table; exit 1 if a target is missed."""
    with tempfile.TemporaryDirectory(prefix="harness-bench-") as temp:
        base_url, paths, record_cost = record(Path(temp))
        print(
            f"recorded {sum(SIZES)} calls against the simulator: {record_cost * 1000:.2f} ms/call"
        )
        scripted = scripted_cost()
        fake, largest = fake_versus_replay(base_url, paths[SIZES[-1]])
        rows = [
            (
                size,
                largest if size == SIZES[-1] else harness_replay(base_url, paths[size], size),
                vcrpy_replay(base_url, paths[size], size),
            )
            for size in SIZES
        ]
        loads = load_time(paths[1000])
        responses = responses_replay(Path(temp))
        gemini = gemini_replay(Path(temp))
    return 0 if report(scripted, fake, rows, loads, responses, gemini) else 1


if __name__ == "__main__":
    sys.exit(main())
