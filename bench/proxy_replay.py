"""What the proxy adds to a replayed call, and what the ``llm_proxy`` fixture costs to start.

Prints, for one recorded Chat Completions call replayed N times with the real
``openai`` SDK:

- in process: the SDK through ``use_cassette`` (vcrpy, what ``llm_cassette`` does);
- through the proxy: the SDK over loopback HTTP to a ``harness proxy`` process
  (what an agent in another process gets);

the proxy's added latency per call (target: at most 2 ms), and the start-up of
a proxy process as the fixture starts it (spawn to ready line) and its stop
(save included).

Run: ``python bench/proxy_replay.py [--calls 200]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import openai

from harness.proxy import ProxyServer, ProxySpec
from harness.recording import use_cassette
from harness.simulator import SimulatorServer
from harness.testing.cassettes.llm_proxy import ProxyProcess

SCRIPT = {"rules": [{"when": {}, "reply": "The answer is 42."}]}
MESSAGES = [{"role": "user", "content": "hi"}]


def _record(cassette: Path, calls: int) -> None:
    with SimulatorServer(SCRIPT) as sim:
        spec = ProxySpec(cassette=cassette, record_mode="rewrite", upstreams={"*": sim.url})
        proxy = ProxyServer(spec).start()
        client = openai.OpenAI(base_url=proxy.url + "/v1", api_key="x", max_retries=0)
        for _ in range(calls):
            client.chat.completions.create(model="gpt-4.1-mini", messages=MESSAGES)
        proxy.stop()


def _timed(client: openai.OpenAI, calls: int) -> list[float]:
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        client.chat.completions.create(model="gpt-4.1-mini", messages=MESSAGES)
        times.append((time.perf_counter() - started) * 1000)
    return times


def _in_process(cassette: Path, calls: int) -> list[float]:
    with use_cassette(cassette, record_mode="none"):
        client = openai.OpenAI(api_key="x", max_retries=0)
        return _timed(client, calls)


def _through_proxy(cassette: Path, calls: int, folder: Path) -> tuple[list[float], float, float]:
    spec_path = folder / "spec.json"
    spec_path.write_text(ProxySpec(cassette=cassette).model_dump_json(), "utf-8")
    process = ProxyProcess(spec_path, folder / "proxy.log")
    started = time.perf_counter()
    url = process.start()
    startup = (time.perf_counter() - started) * 1000
    client = openai.OpenAI(base_url=url + "/v1", api_key="x", max_retries=0)
    times = _timed(client, calls)
    started = time.perf_counter()
    process.stop()
    stop = (time.perf_counter() - started) * 1000
    return times, startup, stop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        cassette = folder / "bench.yaml"
        _record(cassette, args.calls)
        _in_process(cassette, 5)  # warm the SDK and the cassette code
        inside = _in_process(cassette, args.calls)
        proxied, startup, stop = _through_proxy(cassette, args.calls, folder)
    median_in, median_px = statistics.median(inside), statistics.median(proxied)
    python = sys.version.split()[0]
    print(f"replayed calls: {args.calls} (openai SDK, Chat Completions, python {python})")
    print(f"  in process (use_cassette):    median {median_in:6.2f} ms/call")
    print(f"  through the proxy (loopback): median {median_px:6.2f} ms/call")
    print(f"  added by the proxy:           {median_px - median_in:+6.2f} ms/call (target <= 2 ms)")
    print(f"llm_proxy start-up (spawn to ready line): {startup:7.1f} ms")
    print(f"llm_proxy stop (cassette saved):          {stop:7.1f} ms")


if __name__ == "__main__":
    main()
