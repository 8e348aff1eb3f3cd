"""Replaying an agent harness did not build: harness's cassette vs plain vcrpy vs a fake transport.

Run: ``python bench/foreign_replay.py`` (needs the test extra). For each recipe in
``examples/`` (a raw openai loop, pydantic-ai on OpenAI chat, the Agents SDK on
chat completions) one whole agent run is replayed from its committed cassette
three ways, side by side:

- floor: the SDK on ``httpx2.MockTransport`` serving the recorded responses in
  order (no cassette library at all);
- harness: ``use_cassette`` with the recipe's profile (as ``llm_cassette`` opens it);
- vcrpy: ``vcr.use_cassette`` with ``VCRPY_MATCH_ON`` (body matching; the Agents
  SDK's random ``prompt_cache_key`` defeats it, so that row matches without the body).

It prints the median run time and the overhead per model call over the floor.
Target: harness <= 1 ms per call over the floor, and never slower than vcrpy.
"""

from __future__ import annotations

import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import httpx2
import openai
import vcr
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from examples.openai_agents.agent import build  # noqa: E402
from examples.pydantic_ai_agent.agent import agent as pydantic_agent  # noqa: E402
from examples.pydantic_ai_agent.agent import model as pydantic_model  # noqa: E402
from examples.raw_openai.agent import run as raw_run  # noqa: E402
from harness.recording import VCRPY_MATCH_ON, use_cassette  # noqa: E402
from harness.testing import PROFILES  # noqa: E402

RUNS = 15
CASSETTES = ROOT / "examples" / "cassettes" / "examples"
NOTES = "The release code is {code}.\n"


def _responses(path: Path) -> list[tuple[int, list[tuple[str, str]], bytes]]:
    data = yaml.safe_load(path.read_text("utf-8"))
    out = []
    for item in data["interactions"]:
        response = item["response"]
        headers = [(k, v) for k, vs in response["headers"].items() for v in vs]
        body = response["body"]["string"]
        out.append((response["status"]["code"], headers, body.encode("utf-8")))
    return out


def _mock(path: Path, asynchronous: bool) -> Any:
    queue = iter(_responses(path))

    def answer(request: httpx2.Request) -> httpx2.Response:
        status, headers, body = next(queue)
        return httpx2.Response(status, headers=headers, content=body, request=request)

    transport = httpx2.MockTransport(answer)
    return (
        httpx2.AsyncClient(transport=transport)
        if asynchronous
        else httpx2.Client(transport=transport)
    )


def _workspace(code: str) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="harness-bench-"))
    (folder / "notes.txt").write_text(NOTES.format(code=code))
    return folder


def raw(path: Path, http: Any) -> None:
    client = openai.OpenAI(api_key="sk-bench", max_retries=0, http_client=http or httpx2.Client())
    with client:
        result = raw_run("What is the release code?", _workspace("RELEASE-CODE-7Q4Z"), client)
    assert "RELEASE-CODE-7Q4Z" in result.answer, result


def pydantic(path: Path, http: Any) -> None:
    async def ask() -> str:
        client = openai.AsyncOpenAI(
            api_key="sk-bench", max_retries=0, http_client=http or httpx2.AsyncClient()
        )
        async with client:
            workspace = _workspace("RELEASE-CODE-3M8K")
            model = pydantic_model("openai", client)
            result = await pydantic_agent.run(
                "What is the release code?", deps=workspace, model=model
            )
            return result.output

    assert "RELEASE-CODE-3M8K" in asyncio.run(ask())


def agents_sdk(path: Path, http: Any) -> None:
    from agents import Runner

    async def ask() -> str:
        client = openai.AsyncOpenAI(
            api_key="sk-bench", max_retries=0, http_client=http or httpx2.AsyncClient()
        )
        async with client:
            workspace = _workspace("RELEASE-CODE-9T2W")
            result = await Runner.run(build(client), "What is the release code?", context=workspace)
            return str(result.final_output)

    assert "RELEASE-CODE-9T2W" in asyncio.run(ask())


RECIPES: list[tuple[str, Callable[[Path, Any], None], str, bool, str | None]] = [
    (
        "raw openai",
        raw,
        "raw_openai/test_raw_openai/test_reads_the_release_code-plain.yaml",
        False,
        None,
    ),
    (
        "pydantic-ai (openai)",
        pydantic,
        "pydantic_ai_agent/test_pydantic_ai/test_reads_the_release_code-openai.yaml",
        True,
        "pydantic-ai",
    ),
    (
        "openai-agents",
        agents_sdk,
        "openai_agents/test_openai_agents/test_reads_the_release_code.yaml",
        True,
        "openai-agents",
    ),
]


@contextmanager
def _copy(path: Path) -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / path.name
        shutil.copy(path, target)
        yield target


def _median(fn: Callable[[Any], None], prepare: Callable[[], Any]) -> float:
    """Median time of ``fn(prepare())``; ``prepare`` (building an HTTP client, which
    loads the CA bundle) is not timed, so every row pays the same client cost: none."""
    fn(prepare())  # warm up: imports, schema caches
    times = []
    for _ in range(RUNS):
        argument = prepare()
        start = time.perf_counter()
        fn(argument)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _measure(
    fn: Callable[[Path, Any], None], path: Path, asynchronous: bool, profile: str | None
) -> tuple[float, float, float, float, float]:
    """Median seconds: floor run, harness run, vcrpy run, harness and vcrpy open+close."""
    fields = PROFILES[profile] if profile else ()
    match_on = VCRPY_MATCH_ON if profile != "openai-agents" else VCRPY_MATCH_ON[:-1]
    with _copy(path) as copy:

        def harness_session() -> AbstractContextManager[Any]:
            return use_cassette(copy, ignore_body_fields=fields)

        def vcrpy_session() -> AbstractContextManager[Any]:
            cassette: AbstractContextManager[Any] = vcr.VCR(
                record_mode="none", match_on=match_on
            ).use_cassette(str(copy))
            return cassette

        def default_client() -> Any:
            return httpx2.AsyncClient() if asynchronous else httpx2.Client()

        def replay(session: Callable[[], AbstractContextManager[Any]], http: Any) -> None:
            with session():
                fn(path, http)

        def empty(session: Callable[[], AbstractContextManager[Any]], http: Any) -> None:
            with session():
                pass

        return (
            _median(lambda http: fn(path, http), lambda: _mock(path, asynchronous)),
            _median(lambda http: replay(harness_session, http), default_client),
            _median(lambda http: replay(vcrpy_session, http), default_client),
            _median(lambda http: empty(harness_session, http), lambda: None),
            _median(lambda http: empty(vcrpy_session, http), lambda: None),
        )


def main() -> None:
    from agents import set_tracing_disabled

    set_tracing_disabled(True)  # the exporter's thread would add noise to every row
    print(f"median of {RUNS} replayed agent runs (ms); per call = (run - floor - open/close)"
          " / calls")  # fmt: skip
    print(f"{'recipe':22} {'calls':>5} {'floor':>8} {'harness':>8} {'vcrpy':>8} "
          f"{'open h/v':>12} {'per call h':>11} {'per call v':>11}")  # fmt: skip
    for label, fn, relative, asynchronous, profile in RECIPES:
        path = CASSETTES / relative
        calls = len(_responses(path))
        floor, ours, theirs, open_ours, open_theirs = _measure(fn, path, asynchronous, profile)
        per_ours = (ours - floor - open_ours) / calls * 1000
        per_theirs = (theirs - floor - open_theirs) / calls * 1000
        print(
            f"{label:22} {calls:>5} {floor * 1000:>8.2f} {ours * 1000:>8.2f} {theirs * 1000:>8.2f} "
            f"{open_ours * 1000:>5.1f}/{open_theirs * 1000:<5.1f} {per_ours:>11.2f} "
            f"{per_theirs:>11.2f}"
        )
    print("target: per call h <= 1 ms, and harness <= vcrpy")


if __name__ == "__main__":
    main()
