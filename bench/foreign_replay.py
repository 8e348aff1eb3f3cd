"""Replaying an agent harness did not build: harness's cassette vs plain vcrpy vs a fake transport.

Run: ``python bench/foreign_replay.py [RUNS] [LABEL PART]`` (needs the test extra). For each
recipe in ``examples/`` (a raw openai loop, pydantic-ai on OpenAI chat and on
Responses, the Agents SDK on chat completions and on Responses, a LangGraph ReAct graph on
ChatOpenAI, a smolagents ``ToolCallingAgent``) one whole agent
run is replayed from its committed cassette three ways, side by side:

- floor: the SDK on ``httpx2.MockTransport`` serving the recorded responses in
  order (no cassette library at all);
- harness: the cassette ``llm_cassette`` opens (``open_llm_cassette`` with the
  recipe's profile, record mode none);
- vcrpy: ``vcr.use_cassette`` with ``VCRPY_MATCH_ON`` (body matching; the Agents
  SDK's random ``prompt_cache_key`` defeats it, so those rows match without the body).

Method: each iteration runs the three ways back to back, in a rotating order
(so that load drifting on a shared machine hits them alike), each on an HTTP
client built beforehand and after a full garbage collection, both untimed (so
that no way pays for the garbage of the one before). Only the agent run is timed: for harness and
vcrpy the cassette is opened before the clock starts and closed after it stops,
so opening and closing (loading the file, patching) are left out of both alike,
and timed apart as ``open+close``. Every way runs the same number of
iterations after one warm-up; the figures are medians, wall time and the
process's CPU time side by side (CPU is what a loaded machine distorts least).
Per call = (median run - median floor run) / model calls.
Target: harness <= 1 ms per call over the floor, and never slower than vcrpy.
"""

from __future__ import annotations

import asyncio
import gc
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
from harness.recording import VCRPY_MATCH_ON  # noqa: E402
from harness.testing import LLMCassette  # noqa: E402
from harness.testing.cassettes.llm_cassette import open_llm_cassette  # noqa: E402
from harness.testing.cassettes.llm_config import resolve_config  # noqa: E402

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 40
LAYER_RUNS = 200
ONLY = sys.argv[2] if len(sys.argv) > 2 else ""  # run only the recipes whose label has this
CASSETTES = ROOT / "examples" / "cassettes" / "examples"
NOTES = "The release code is {code}.\n"
WORKSPACES: dict[str, Path] = {}


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
    """One workspace per code for the whole bench (removed at the end), made untimed."""
    if code not in WORKSPACES:
        folder = Path(tempfile.mkdtemp(prefix="harness-bench-"))
        (folder / "notes.txt").write_text(NOTES.format(code=code))
        WORKSPACES[code] = folder
    return WORKSPACES[code]


def raw(path: Path, http: Any) -> None:
    client = openai.OpenAI(api_key="sk-bench", max_retries=0, http_client=http or httpx2.Client())
    with client:
        result = raw_run("What is the release code?", _workspace("RELEASE-CODE-7Q4Z"), client)
    assert "RELEASE-CODE-7Q4Z" in result.answer, result


def _pydantic(provider: str, path: Path, http: Any) -> None:
    async def ask() -> str:
        client = openai.AsyncOpenAI(
            api_key="sk-bench", max_retries=0, http_client=http or httpx2.AsyncClient()
        )
        async with client:
            workspace = _workspace("RELEASE-CODE-3M8K")
            model = pydantic_model(provider, client)
            result = await pydantic_agent.run(
                "What is the release code?", deps=workspace, model=model
            )
            return result.output

    assert "RELEASE-CODE-3M8K" in asyncio.run(ask())


def pydantic(path: Path, http: Any) -> None:
    _pydantic("openai", path, http)


def pydantic_responses(path: Path, http: Any) -> None:
    _pydantic("openai-responses", path, http)


def _agents_sdk(api: Any, path: Path, http: Any) -> None:
    from agents import Runner

    async def ask() -> str:
        client = openai.AsyncOpenAI(
            api_key="sk-bench", max_retries=0, http_client=http or httpx2.AsyncClient()
        )
        async with client:
            workspace = _workspace("RELEASE-CODE-9T2W")
            result = await Runner.run(
                build(client, api), "What is the release code?", context=workspace
            )
            return str(result.final_output)

    assert "RELEASE-CODE-9T2W" in asyncio.run(ask())


def agents_sdk(path: Path, http: Any) -> None:
    _agents_sdk("chat", path, http)


def agents_sdk_responses(path: Path, http: Any) -> None:
    _agents_sdk("responses", path, http)


def langgraph(path: Path, http: Any) -> None:
    from langchain_openai import ChatOpenAI

    from examples.langgraph_agent.agent import MODEL
    from examples.langgraph_agent.agent import build as build_graph

    model = ChatOpenAI(model=MODEL, api_key="sk-bench", max_retries=0, http_client=http)  # type: ignore[arg-type]
    graph = build_graph(model, _workspace("RELEASE-CODE-3M8K"))
    result = graph.invoke({"messages": [("user", "What is the release code?")]})
    assert "RELEASE-CODE-3M8K" in str(result["messages"][-1].content), result


def smolagents(path: Path, http: Any) -> None:
    from smolagents import OpenAIServerModel, ToolCallingAgent

    from examples.smolagents_agent.agent import MODEL, ReadFile

    client = openai.OpenAI(api_key="sk-bench", max_retries=0, http_client=http or httpx2.Client())
    with client:
        # The recipe's build(), with a key: OpenAIServerModel makes a client of its own first.
        model = OpenAIServerModel(MODEL, api_key="sk-bench")
        model.client = client
        workspace = _workspace("RELEASE-CODE-7QX4")
        agent = ToolCallingAgent(
            tools=[ReadFile(workspace)], model=model, max_steps=4, verbosity_level=0
        )
        answer = str(agent.run("What is the release code?"))
    assert "RELEASE-CODE-7QX4" in answer, answer


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
        "pydantic-ai (responses)",
        pydantic_responses,
        "pydantic_ai_agent/test_pydantic_ai/test_reads_the_release_code-openai-responses.yaml",
        True,
        "pydantic-ai",
    ),
    (
        "openai-agents (chat)",
        agents_sdk,
        "openai_agents/test_openai_agents/test_reads_the_release_code.yaml",
        True,
        "openai-agents",
    ),
    (
        "openai-agents (responses)",
        agents_sdk_responses,
        "openai_agents/test_openai_agents/test_reads_the_release_code_on_responses.yaml",
        True,
        "openai-agents",
    ),
    (
        "langgraph",
        langgraph,
        "langgraph_agent/test_langgraph/test_reads_the_release_code.yaml",
        False,
        None,
    ),
    (
        "smolagents",
        smolagents,
        "smolagents_agent/test_smolagents/test_reads_the_release_code.yaml",
        False,
        None,
    ),
]


@contextmanager
def _copy(path: Path) -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / path.name
        shutil.copy(path, target)
        yield target


Clock = tuple[float, float]  # (wall, cpu) seconds


def _now() -> Clock:
    return time.perf_counter(), time.process_time()


def _since(start: Clock) -> Clock:
    wall, cpu = _now()
    return wall - start[0], cpu - start[1]


class _Way:
    """One way of replaying a recipe: how to build its client and its cassette session."""

    def __init__(
        self,
        client: Callable[[], Any],
        session: Callable[[], AbstractContextManager[Any]] | None,
    ) -> None:
        self.client = client
        self.session = session
        self.runs: list[Clock] = []
        self.opens: list[Clock] = []
        self.layer: list[Clock] = []

    def once(self, fn: Callable[[Any], None]) -> None:
        http = self.client()  # untimed: loading the CA bundle is nobody's overhead
        # The garbage of the way before is collected now, not charged to this one.
        gc.collect()
        if self.session is None:
            start = _now()
            fn(http)
            self.runs.append(_since(start))
            return
        start = _now()
        session = self.session()
        session.__enter__()
        opened = _since(start)
        gc.collect()  # nor the garbage of opening the cassette to the run
        try:
            start = _now()
            fn(http)
            self.runs.append(_since(start))
        finally:
            start = _now()
            session.__exit__(None, None, None)
            closed = _since(start)
        self.opens.append((opened[0] + closed[0], opened[1] + closed[1]))


def _median(clocks: list[Clock]) -> Clock:
    if not clocks:
        return 0.0, 0.0
    return statistics.median(c[0] for c in clocks), statistics.median(c[1] for c in clocks)


def _measure(
    fn: Callable[[Path, Any], None], path: Path, asynchronous: bool, profile: str | None
) -> dict[str, _Way]:
    """Floor, harness and vcrpy runs of one recipe, interleaved in a rotating order."""
    config = resolve_config(None, {"profile": profile} if profile else None)
    match_on = VCRPY_MATCH_ON if profile != "openai-agents" else VCRPY_MATCH_ON[:-1]
    with _copy(path) as copy:

        def harness_session() -> AbstractContextManager[Any]:
            cassette = LLMCassette(copy, "none", config=config)
            return open_llm_cassette(cassette, allow_unplayed=False)

        def vcrpy_session() -> AbstractContextManager[Any]:
            cassette: AbstractContextManager[Any] = vcr.VCR(
                record_mode="none", match_on=match_on
            ).use_cassette(str(copy))
            return cassette

        def default_client() -> Any:
            return httpx2.AsyncClient() if asynchronous else httpx2.Client()

        ways = {
            "floor": _Way(lambda: _mock(path, asynchronous), None),
            "harness": _Way(default_client, harness_session),
            "vcrpy": _Way(default_client, vcrpy_session),
        }
        order = list(ways.values())

        def run(http: Any) -> None:
            fn(path, http)

        for way in order:  # warm up: imports, schema caches
            way.once(run)
            way.runs.clear()
            way.opens.clear()
        # What the imports and the warm-up left stays out of every collection: a full
        # collection then costs what the runs allocated, not the frameworks' import heap.
        gc.collect()
        gc.freeze()
        for iteration in range(RUNS):
            shift = iteration % len(order)
            for way in order[shift:] + order[:shift]:
                way.once(run)
        with harness_session() as opened:  # the requests the SDK sent, for the layer rows
            fn(path, default_client())
            requests = [request for request, _ in opened.exchanges()]
        ways["harness"].layer = _layer(harness_session, lambda o: o.handle._cassette, requests)
        ways["vcrpy"].layer = _layer(vcrpy_session, lambda cassette: cassette, requests)
        return ways


def _layer(
    session: Callable[[], AbstractContextManager[Any]],
    cassette_of: Callable[[Any], Any],
    requests: list[Any],
) -> list[Clock]:
    """The cassette library alone: match and play each recorded request, per open session.

    harness parses a stored response when it is first played, vcrpy every one when
    the file is opened: this row charges harness for that parsing and vcrpy not.

    Both libraries get the same vcrpy ``Request`` objects the SDK sent and answer
    them through the same two calls vcrpy's stubs make (``can_play_response_for``,
    ``play_response``); the SDK and vcrpy's HTTP stubs, the same for both, are
    left out, and with them most of the noise of a whole run.
    """
    clocks = []
    for _ in range(LAYER_RUNS):
        with session() as opened:
            cassette = cassette_of(opened)
            gc.collect()
            start = _now()
            for request in requests:
                assert cassette.can_play_response_for(request)
                cassette.play_response(request)
            clocks.append(_since(start))
    return clocks


def _ms(clock: Clock) -> str:
    return f"{clock[0] * 1000:6.2f}/{clock[1] * 1000:<6.2f}"


def _per_call(run: Clock, floor: Clock, calls: int) -> Clock:
    return (run[0] - floor[0]) / calls, (run[1] - floor[1]) / calls


def main() -> None:
    from agents import set_tracing_disabled

    set_tracing_disabled(True)  # the exporter's thread would add noise to every row
    print(f"median of {RUNS} replayed agent runs per way, interleaved; wall / CPU in ms")
    print("per call = (run - floor run) / calls; open+close is timed apart, in no row;")
    print(f"layer = the cassette library alone per call (median of {LAYER_RUNS}), CPU microseconds")
    print(f"{'recipe':26} {'calls':>5} {'floor':>13} {'harness':>13} {'vcrpy':>13} "
          f"{'open+close h / v':>17} {'per call h':>13} {'per call v':>13} "
          f"{'layer h / v':>13}")  # fmt: skip
    try:
        for label, fn, relative, asynchronous, profile in RECIPES:
            if ONLY not in label:
                continue
            path = CASSETTES / relative
            calls = len(_responses(path))
            ways = _measure(fn, path, asynchronous, profile)
            floor, ours, theirs = (_median(ways[k].runs) for k in ("floor", "harness", "vcrpy"))
            open_ours, open_theirs = (_median(ways[k].opens) for k in ("harness", "vcrpy"))

            print(
                f"{label:26} {calls:>5} {_ms(floor)} {_ms(ours)} {_ms(theirs)} "
                f"{open_ours[1] * 1000:>8.1f}/{open_theirs[1] * 1000:<8.1f} "
                f"{_ms(_per_call(ours, floor, calls))} {_ms(_per_call(theirs, floor, calls))} "
                f"{_median(ways['harness'].layer)[1] / calls * 1e6:6.0f}/"
                f"{_median(ways['vcrpy'].layer)[1] / calls * 1e6:<6.0f}"
            )
    finally:
        for folder in WORKSPACES.values():
            shutil.rmtree(folder, ignore_errors=True)
    print("target: per call h <= 1 ms, and harness <= vcrpy (open+close: CPU ms)")


if __name__ == "__main__":
    main()
