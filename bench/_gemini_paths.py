"""The ways of calling Gemini that ``replay_bench.py`` times, each on a client it is given.

A path is built on a ``genai.Client``: the replay gets one on the SDK's default
host (the cassette answers it), the recording one on the simulator, and the SDK
floor one whose HTTP library sends through an in-process transport that answers
every call with a recorded response. The floor is the same SDK call with no
harness and no vcrpy: what is left once replay costs nothing. It is in-process
rather than a loopback server because a replay opens no socket either; a server
would add its own time and socket I/O to the floor and hide part of harness's share.

Paths: ``GeminiProvider`` (harness's runtime provider, which sends through the
SDK's request layer) sync, async and streaming, and the SDK's typed
``client.models.generate_content``, what a test calls on ``llm_cassette.gemini()``;
its pydantic conversions of the request and the answer are the SDK's own cost.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from google import genai
from google.genai import _api_client, types

from harness.core import LLMRequest, Message
from harness.wires.gemini import GeminiProvider

__all__ = ["GEMINI_PATHS", "GeminiCalls", "GeminiPath", "async_transport", "sdk_client"]

MODEL = "gemini-2.5-flash"
KEY = "AIza-bench"

Run = Callable[[list[int]], None]


class GeminiCalls:
    """Interaction ``i`` asks ``questions[i]`` under one system prompt; all answer ``answer``."""

    def __init__(self, system: str, questions: list[str], answer: str) -> None:
        self.system = system
        self.questions = questions
        self.answer = answer
        self.requests = [
            LLMRequest(messages=(Message.system(system), Message.user(q))) for q in questions
        ]

    def provider(self, client: genai.Client, *, stream: bool = False) -> Run:
        """``GeminiProvider.complete`` per call."""
        provider = GeminiProvider(MODEL, client=client, stream=stream)

        def run(calls: list[int]) -> None:
            for i in calls:
                assert provider.complete(self.requests[i]).text == self.answer

        return run

    def streamed(self, client: genai.Client) -> Run:
        """``GeminiProvider.complete`` over ``streamGenerateContent?alt=sse``."""
        return self.provider(client, stream=True)

    def asynchronous(self, client: genai.Client) -> Run:
        """``await GeminiProvider.acomplete`` per call, all sessions on one event loop.

        google-genai keeps one async pool per event loop (aiohttp's when it is
        importable), so a loop per session would time building pools.
        """
        provider = GeminiProvider(MODEL, client=client.aio)
        loop = _loops.setdefault(id(client), asyncio.new_event_loop())

        async def calls_of(calls: list[int]) -> None:
            for i in calls:
                assert (await provider.acomplete(self.requests[i])).text == self.answer

        return lambda calls: loop.run_until_complete(calls_of(calls))

    def typed(self, client: genai.Client) -> Run:
        """The SDK's typed ``client.models.generate_content`` per call."""
        config = types.GenerateContentConfig(system_instruction=self.system)

        def run(calls: list[int]) -> None:
            for i in calls:
                answer = client.models.generate_content(
                    model=MODEL, contents=self.questions[i], config=config
                )
                assert answer.text == self.answer

        return run


class GeminiPath(NamedTuple):
    """One way of calling Gemini; ``cassette`` names the recording it replays.

    ``target``: whether the bench holds its replay to the 2 ms target. A stream
    is not held to it: the simulator streams a word an event, and the SDK's cost
    per event (its floor) is most of the call, whatever replay costs.
    """

    label: str
    run: Callable[[GeminiCalls, genai.Client], Run]
    cassette: str
    asynchronous: bool = False
    target: bool = True


def _async_library() -> str:
    return "aiohttp" if getattr(_api_client, "has_aiohttp", False) else _sync_library()


def _sync_library() -> str:
    """The httpx google-genai sends through by default (httpx, else its fork httpx2)."""
    backend = getattr(_api_client, "_get_http_client_backend", lambda: "httpx")
    return str(backend())


GEMINI_PATHS = (
    GeminiPath(f"GeminiProvider, sync ({_sync_library()})", GeminiCalls.provider, "generate"),
    GeminiPath(
        f"GeminiProvider, async ({_async_library()})",
        GeminiCalls.asynchronous,
        "generate",  # the same requests as the sync path
        asynchronous=True,
    ),
    GeminiPath("GeminiProvider, stream (SSE)", GeminiCalls.streamed, "stream", target=False),
    GeminiPath("genai models.generate_content", GeminiCalls.typed, "typed"),
)
_loops: dict[int, asyncio.AbstractEventLoop] = {}


def sdk_client(
    base_url: str | None = None, answer: Mapping[str, Any] | None = None
) -> genai.Client:
    """A client as ``llm_cassette.gemini()`` builds one (v1beta, no retries).

    With ``answer`` (a vcrpy response dict), its HTTP library sends through an
    in-process transport answering every request with it: the SDK floor. Its
    async side then uses that library too (an async transport turns aiohttp off).
    """
    sync_args: dict[str, Any] | None = None
    async_args: dict[str, Any] | None = None
    if answer is not None:
        library = importlib.import_module(_sync_library())
        status = answer["status"]["code"]
        headers = {name: values[0] for name, values in answer["headers"].items()}
        body = answer["body"]["string"]

        def respond(request: Any) -> Any:
            return library.Response(status, headers=headers, content=body)

        async def respond_async(request: Any) -> Any:
            return respond(request)

        sync_args = {"transport": library.MockTransport(respond)}
        async_args = {"transport": library.MockTransport(respond_async)}
    options = types.HttpOptions(
        base_url=base_url,
        api_version="v1beta",
        retry_options=types.HttpRetryOptions(attempts=1),
        client_args=sync_args,
        async_client_args=async_args,
    )
    return genai.Client(api_key=KEY, http_options=options)


def async_transport(path: GeminiPath) -> str | None:
    """Why the floor of ``path`` is not the replay's HTTP path, or None when it is."""
    if path.asynchronous and _async_library() == "aiohttp":
        return f"replay through aiohttp, floor through {_sync_library()}"
    return None


def close(client: genai.Client) -> None:
    """Close ``client``'s pools, the async one on the loop its calls ran on."""
    loop = _loops.pop(id(client), None)
    if loop is not None:
        loop.run_until_complete(client.aio.aclose())
        loop.close()
    client.close()
