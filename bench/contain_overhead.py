"""What containment adds: per request through the bridge, and per contained start.

A loopback HTTP/1.1 server on the host stands in for the proxy (it answers a
small POST at once, so what is timed is the path, not the server's work). One
client script makes N sequential requests, timing each in its own process:

* ``keep-alive``: one connection for all requests (what SDKs' pools do);
* ``new connection``: a connection per request (each one crosses the bridge's
  accept, the Unix-socket connect and the relay's TCP connect).

It runs twice, directly on the host and contained (``contained_command``),
taking turns; the table prints median and p90 microseconds per request and
the difference, which is what the bridge adds. Then the start-up: ``python -c
pass`` directly against contained (bwrap, the bridge's Python, the hello on the
control socket, the namespace's teardown in ``settle``), and the relay's
enter + exit on its own.

Run: ``python bench/contain_overhead.py [--requests 300] [--turns 5] [--starts 20]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from harness.proxy._contain import Refusal, contained_command

CLIENT = """
import http.client, json, socket, sys, time
port, n, fresh = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "fresh"
body = json.dumps({"model": "m", "input": "hi"}).encode()
times = []
conn = None
for _ in range(n):
    if conn is None or fresh:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.connect()  # headers and body go in two writes: without this, Nagle holds the second
        conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    started = time.perf_counter()
    conn.request("POST", "/v1/responses", body, {"Content-Type": "application/json"})
    answer = conn.getresponse().read()
    times.append((time.perf_counter() - started) * 1e6)
    if fresh:
        conn.close()
print(json.dumps(times))
"""


class _Answer(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    ANSWER = json.dumps({"id": "r1", "output_text": "ok"}).encode()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(self.ANSWER)))
        self.end_headers()
        self.wfile.write(self.ANSWER)

    def log_message(self, format: str, *args: object) -> None:
        pass


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _client_times(run: Callable[[list[str]], str], port: int, n: int, mode: str) -> list[float]:
    times: list[float] = json.loads(run([sys.executable, "-c", CLIENT, str(port), str(n), mode]))
    return times[1:]  # the first request also pays the client's lazy imports


def _direct(argv: list[str]) -> str:
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout


def _contained(port: int, folder: Path) -> Callable[[list[str]], str]:
    def run(argv: list[str]) -> str:
        contained = contained_command(argv, proxy_port=port, cwd=folder)
        if isinstance(contained, Refusal):
            raise SystemExit(contained.reason)
        with contained:
            return contained.run(capture_output=True, text=True, check=True).stdout

    return run


def _per_request(port: int, folder: Path, requests: int, turns: int) -> None:
    print(f"per request ({requests - 1} timed requests x {turns} turns, microseconds)")
    print(f"{'mode':<16}{'direct p50':>12}{'contained p50':>15}{'added p50':>11}{'added p90':>11}")
    contained = _contained(port, folder)
    for mode in ("keep-alive", "fresh"):
        direct_times: list[float] = []
        bridged_times: list[float] = []
        for _ in range(turns):
            direct_times += _client_times(_direct, port, requests, mode)
            bridged_times += _client_times(contained, port, requests, mode)
        d50, b50 = statistics.median(direct_times), statistics.median(bridged_times)
        d90, b90 = _percentile(direct_times, 0.9), _percentile(bridged_times, 0.9)
        label = "keep-alive" if mode == "keep-alive" else "new connection"
        print(f"{label:<16}{d50:>12.0f}{b50:>15.0f}{b50 - d50:>11.0f}{b90 - d90:>11.0f}")


def _start_up(port: int, folder: Path, starts: int) -> None:
    argv = [sys.executable, "-c", "pass"]
    direct: list[float] = []
    contained: list[float] = []
    relay: list[float] = []
    for _ in range(starts):
        started = time.perf_counter()
        subprocess.run(argv, check=True)
        direct.append((time.perf_counter() - started) * 1000)
        command = contained_command(argv, proxy_port=port, cwd=folder)
        assert not isinstance(command, Refusal)
        started = time.perf_counter()
        with command:
            command.run(check=True)
        contained.append((time.perf_counter() - started) * 1000)
        command = contained_command(argv, proxy_port=port, cwd=folder)
        assert not isinstance(command, Refusal)
        started = time.perf_counter()
        with command:
            pass
        relay.append((time.perf_counter() - started) * 1000)
    d, c = statistics.median(direct), statistics.median(contained)
    print(f"\nstart-up ({starts} runs, median ms)")
    print(f"python -c pass directly          {d:7.1f}")
    print(f"contained (bwrap, bridge, settle) {c:6.1f}   added {c - d:6.1f}")
    print(f"relay enter + exit alone          {statistics.median(relay):6.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--starts", type=int, default=20)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Answer)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    port = server.server_address[1]
    probe = contained_command(["true"], proxy_port=port)
    if isinstance(probe, Refusal):
        raise SystemExit(probe.reason)
    try:
        with tempfile.TemporaryDirectory(prefix="contain-bench-") as folder:
            _per_request(port, Path(folder), args.requests, args.turns)
            _start_up(port, Path(folder), args.starts)
    finally:
        server.shutdown()
        server.server_close()


if __name__ == "__main__":
    main()
