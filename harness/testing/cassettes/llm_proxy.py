"""``LLMProxy``: a per-test ``harness proxy`` process, and what it hands the test.

An agent that runs as its own process (a CLI, a Node script, a binary) is
started by the test with :attr:`LLMProxy.env`: every SDK's base-URL variable
points at the proxy, and the keys are dummies when replaying or simulating.
The proxy runs in a process of its own (``python -m
harness.testing.plugin.proxy_child SPEC``) on the test's cassette, the one
``llm_cassette`` would open (same path rules, record modes, epochs, and
``--harness-base-url`` as the upstream while recording). What it answered
comes back over its control path, so the traffic trace, ``tool_calls()``
and the eval row are read as for ``llm_cassette`` (this class is one).

A child started with :meth:`LLMProxy.run` in an ``eval`` test (in every test
with ``--harness-block-live``) is contained (:mod:`harness.proxy._contain`): it
can reach only the proxy, and a connection it tried past it fails the test
with a message naming the host. Where containment cannot run (no bwrap, no
user namespaces, ``HARNESS_PROXY_CONTAIN=off``) the child runs as is and the
run says so once, in one line.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import socket
import subprocess
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from harness.core.errors import CassetteError, ConfigurationError
from harness.core.wires import credential_env_names, ready_wires
from harness.settings import env_value
from harness.testing.cassettes.llm_cassette import DEFAULT_BASE_URLS, LLMCassette

if TYPE_CHECKING:
    from harness.proxy import BlockedConnection, ContainedCommand

__all__ = ["CONTAIN_SETTING", "LLMProxy", "ProxyProcess", "containment_setting", "live_upstreams"]

_START_TIMEOUT = 30.0
_STOP_TIMEOUT = 30.0
_LOOPBACK = "127.0.0.1,localhost,::1"
# The environment variable that turns containment off for a run (``off``): for a
# machine where bwrap works but the agent must reach something else, and to see
# what a machine without containment prints.
CONTAIN_SETTING = "HARNESS_PROXY_CONTAIN"
_OFF = frozenset({"off", "0", "false", "no"})
_ON = frozenset({"", "on", "auto", "1", "true", "yes"})
# A model API's scheme: a host named only by a child's own error is taken as https.
_API_PORT = 443


def containment_setting() -> str | None:
    """The one-line reason when ``HARNESS_PROXY_CONTAIN`` turns containment off, else None.

    Raises:
        ConfigurationError: the variable holds neither ``on`` nor ``off``.
    """
    value = env_value("proxy_contain") or ""
    if value.lower() in _OFF:
        return f"containment is off: {CONTAIN_SETTING}={value}"
    if value.lower() not in _ON:
        raise ConfigurationError(
            f"{CONTAIN_SETTING}={value!r}: use on (the default: contain where bwrap works) or off"
        )
    return None


def live_upstreams() -> dict[str, str]:
    """Each wire's real API, from the registry: where a live recording forwards."""
    upstreams = {w.name: str(w.sdk_base_url) for w in ready_wires() if w.sdk_base_url}
    for entry in ready_wires():
        if entry.sdk_base_url is None and entry.name.startswith("openai"):
            upstreams[entry.name] = upstreams["openai"]  # the Responses API: the same client
    return upstreams


def _control(url: str, command: str, method: str = "GET") -> dict[str, Any]:
    """Ask the proxy at ``url`` for its state, over a bare socket.

    Not through an HTTP library: the test may have one patched (vcrpy, a guard).
    """
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    request = (
        f"{method} /__harness__/{command} HTTP/1.1\r\nHost: {host}:{port}\r\n"
        "Content-Length: 0\r\nConnection: close\r\n\r\n"
    ).encode("ascii")
    with socket.create_connection((host, port), timeout=_STOP_TIMEOUT) as conn:
        conn.sendall(request)
        data = bytearray()
        while chunk := conn.recv(65536):
            data += chunk
    head, _, body = bytes(data).partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200"):
        raise CassetteError(f"harness proxy at {url} answered {head[:60]!r} to {command}")
    result: dict[str, Any] = json.loads(body)
    return result


class ProxyProcess:
    """A ``harness proxy`` child process: started on a spec file, stopped with its state.

    Args:
        spec_path: the JSON :class:`harness.proxy.ProxySpec`.
        log_path: where the proxy's request log (stderr) goes.
    """

    def __init__(self, spec_path: Path, log_path: Path) -> None:
        self.spec_path = spec_path
        self.log_path = log_path
        self.url = ""
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> str:
        """Start the process and wait for its ready line; returns its URL.

        Raises:
            CassetteError: the proxy did not start (its one-line error, e.g. a
                cassette missing in mode none).
        """
        from harness.proxy import READY_PREFIX

        env = dict(os.environ)
        root = str(Path(__file__).resolve().parents[2])  # this harness, also for the child
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
        with open(self.log_path, "wb") as log:
            self._process = subprocess.Popen(
                [sys.executable, "-m", "harness.testing.plugin.proxy_child", str(self.spec_path)],
                stdout=subprocess.PIPE,
                stderr=log,
                env=env,
            )
        line = self._ready_line()
        if not line.startswith(READY_PREFIX):
            process, self._process = self._process, None
            process.wait(timeout=_STOP_TIMEOUT)
            if process.stdout is not None:
                process.stdout.close()
            raise CassetteError(self._failure() or f"harness proxy did not start: {line!r}")
        self.url = line[len(READY_PREFIX) :].strip()
        return self.url

    def _ready_line(self) -> str:
        assert self._process is not None and self._process.stdout is not None
        with selectors.DefaultSelector() as selector:
            selector.register(self._process.stdout, selectors.EVENT_READ)
            if not selector.select(timeout=_START_TIMEOUT):
                self._process.kill()
                return "(no ready line within 30 s)"
        return self._process.stdout.readline().decode("utf-8", "replace")

    def _failure(self) -> str | None:
        """The proxy's last ``error:`` line, if it wrote one."""
        try:
            lines = self.log_path.read_text("utf-8", "replace").splitlines()
        except OSError:
            return None
        errors = [line.removeprefix("error: ") for line in lines if line.startswith("error: ")]
        return errors[-1] if errors else None

    def state(self) -> dict[str, Any]:
        """What the proxy answered so far and the errors it sent."""
        return _control(self.url, "exchanges")

    def stop(self) -> dict[str, Any]:
        """Stop the proxy (it saves the cassette); returns its final state."""
        process, self._process = self._process, None
        if process is None:
            return {}
        try:
            final = _control(self.url, "stop", "POST")
        except OSError:
            final = {}
        try:
            process.wait(timeout=_STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()
        if not final:
            final = {"failure": self._failure() or "harness proxy stopped without its state"}
        return final


class LLMProxy(LLMCassette):
    """The ``llm_proxy`` fixture's value: the proxy's URL and the environment for a child.

    Attributes:
        url: the proxy's root URL (``http://127.0.0.1:PORT``), once started.
        log_path: its request log, one line per request.
        containment: why a child started with :meth:`run` must reach only the
            proxy (``"an eval test"``, ``"--harness-block-live"``), or None: it
            runs as is.
        refusal: after a child that should have been contained ran as is, the
            one-line reason (``containment is off: ...``); else None.
        blocked: the connections past the proxy that failed this test.
    """

    def __init__(
        self,
        *args: Any,
        log_path: Path,
        containment: str | None = None,
        relay_dir: Path | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.url = ""
        self.log_path = log_path
        self.final: dict[str, Any] | None = None
        self.process: ProxyProcess | None = None
        self.containment = containment
        self.refusal: str | None = None
        self.blocked: list[BlockedConnection] = []
        self._relay_dir = relay_dir
        self._miss: CassetteError | None = None

    @property
    def opened(self) -> bool:
        """Whether the proxy was started (its exchanges can be read)."""
        return bool(self.url)

    def base_url(self, provider: str) -> str:
        """The URL a ``provider`` client ("openai", "anthropic", "gemini") must use: the proxy's."""
        if provider == "openai-responses":
            provider = "openai"
        if provider not in DEFAULT_BASE_URLS:
            known = " or ".join(repr(name) for name in DEFAULT_BASE_URLS)
            raise ConfigurationError(f"llm_proxy.base_url({provider!r}): use {known}")
        if not self.url:
            raise ConfigurationError("the llm_proxy has not started (outside its test)")
        return self.url + next(w.simulator_base_path for w in ready_wires() if w.name == provider)

    @property
    def env(self) -> dict[str, str]:
        """The environment for the process under test: this one's, pointed at the proxy.

        Every SDK's base-URL variable names the proxy; keys are dummies when
        replaying (every credential variable is replaced or dropped then, so
        no real key reaches the child) or when recording against the simulator
        without one; loopback is kept off any HTTP proxy; a profile adds its
        agent's switches (``claude-code``: no non-essential traffic).
        """
        from harness.proxy import PROFILES as PROXY_PROFILES

        env = dict(os.environ)
        if self.replaying:
            for name in credential_env_names():
                env.pop(name, None)
        env.update(self.environment())
        for variable in ("NO_PROXY", "no_proxy"):
            kept = env.get(variable)
            env[variable] = f"{kept},{_LOOPBACK}" if kept else _LOOPBACK
        for name in self.config.profiles:
            profile = PROXY_PROFILES.get(name)
            if profile is not None:
                env.update(dict(profile.env))
        return env

    def exchanges(self) -> list[tuple[Any, dict[str, Any]]]:
        """The ``(vcr request, response dict)`` pairs the proxy answered so far."""
        from harness.proxy import exchange_from_json

        if self.final is not None:
            state = self.final
        elif self.process is not None and self.url:
            state = self.process.state()
        else:
            return []
        return [exchange_from_json(item) for item in state.get("exchanges", [])]

    def errors(self) -> list[dict[str, str]]:
        """The errors the proxy answered with so far (misses first among them)."""
        if self.final is not None:
            return list(self.final.get("errors", []))
        if self.process is None or not self.url:
            return []
        return list(self.process.state().get("errors", []))

    def miss(self) -> CassetteError | None:
        """The first replay miss the proxy answered, as the error a test reports (the same
        object each time)."""
        from harness.recording import UnmatchedRequestError

        if self._miss is None:
            try:
                errors = self.errors()
            except (OSError, CassetteError, ValueError):
                return None  # the proxy is gone; its teardown reports what it knew
            first = next((e for e in errors if e.get("kind") == "harness_replay_miss"), None)
            if first is not None:
                self._miss = UnmatchedRequestError(
                    first["message"], cassette_path=str(self.path), method="", path=""
                )
        return self._miss

    def run(
        self,
        argv: Sequence[str],
        *,
        cwd: Path | str | None = None,
        env: Mapping[str, str] | None = None,
        writable: Iterable[Path | str] = (),
        **kwargs: Any,
    ) -> subprocess.CompletedProcess[Any]:
        """Run the agent ``argv`` to its end: ``subprocess.run`` with :attr:`env`, contained
        when the test requires it.

        Contained (see :attr:`containment`), the child reaches only the proxy, at
        the same address as outside; it can write to ``cwd``, ``/tmp`` and the
        ``writable`` folders, and whatever it started is gone when this returns.
        Then a connection it tried past the proxy, caught by the trap or named
        in its captured output (a model API's host: ``getaddrinfo EAI_AGAIN
        api.openai.com``), fails the test with a message naming the host.

        Args:
            argv: the command, e.g. ``["node", "agent.mjs"]``.
            cwd: its working folder (default: this process's).
            env: its environment (default: :attr:`env`).
            writable: more folders a contained child may write to (a home or
                config folder outside ``cwd`` and ``/tmp``).
            **kwargs: for ``subprocess.run`` (``capture_output``, ``text``,
                ``timeout``, ``input``, ``check``...).

        Returns:
            The finished process, as ``subprocess.run`` gives it.

        Raises:
            ConfigurationError: ``argv`` is empty or a folder does not exist.
        """
        environ = dict(self.env if env is None else env)
        contained = self._contained(argv, environ, cwd, writable)
        if contained is None:
            return subprocess.run(list(argv), env=environ, cwd=cwd, **kwargs)
        # The blocked host is the news, more than a timeout or an exit status it
        # caused: ``check`` is applied after the look at what was blocked.
        check = bool(kwargs.pop("check", False))
        # bwrap dies with the thread that started it (--die-with-parent): this
        # one, which waits for it here.
        try:
            with contained:
                done = contained.run(**kwargs)
        except subprocess.TimeoutExpired as exc:
            self._fail_on_blocked(contained, exc.output, exc.stderr)
            raise
        self._fail_on_blocked(contained, done.stdout, done.stderr)
        if check:
            done.check_returncode()
        return done

    @contextlib.contextmanager
    def popen(
        self,
        argv: Sequence[str],
        *,
        cwd: Path | str | None = None,
        env: Mapping[str, str] | None = None,
        writable: Iterable[Path | str] = (),
        **kwargs: Any,
    ) -> Iterator[subprocess.Popen[Any]]:
        """Start the agent ``argv`` for the block (``subprocess.Popen``), contained as in
        :meth:`run`: for an agent the test talks to while it runs.

        Leaving the block kills the process if it still runs, then, contained,
        whatever it started; a connection it tried past the proxy (the trap's
        record: its output is the test's to read) then fails the test naming
        the host. Use it from the thread that enters the block.

        Args:
            argv, cwd, env, writable: as for :meth:`run`.
            **kwargs: for ``subprocess.Popen`` (``stdin``, ``stdout``, ``text``...).
        """
        environ = dict(self.env if env is None else env)
        contained = self._contained(argv, environ, cwd, writable)
        if contained is None:
            with subprocess.Popen(list(argv), env=environ, cwd=cwd, **kwargs) as process:
                try:
                    yield process
                finally:
                    _end(process)
            return
        # Started by this thread, which stays in the block while it runs (bwrap
        # dies with the thread that started it).
        with (
            contained,
            subprocess.Popen(
                contained.argv, env=contained.env, cwd=contained.cwd, **kwargs
            ) as process,
        ):
            try:
                yield process
            finally:
                _end(process)
                contained.settle()
                # Also over the block's own error: the blocked host is the news.
                self._fail_on_blocked(contained, None, None)

    def _contained(
        self,
        argv: Sequence[str],
        env: dict[str, str],
        cwd: Path | str | None,
        writable: Iterable[Path | str],
    ) -> ContainedCommand | None:
        """The contained command, or None: not required here, or off (``refusal`` says why)."""
        from harness.proxy import Refusal, contained_command

        if not argv:
            raise ConfigurationError("llm_proxy.run needs a command: argv is empty")
        if self.containment is None:
            return None
        if not self.url:
            raise ConfigurationError("the llm_proxy has not started (outside its test)")
        off = containment_setting()
        if off is not None:
            self.refusal = off
            return None
        found = contained_command(
            argv,
            proxy_port=self._port(),
            env=env,
            cwd=cwd,
            writable=writable,
            relay_dir=self._relay_dir,
        )
        if isinstance(found, Refusal):
            self.refusal = found.reason
            return None
        return found

    def _port(self) -> int:
        port = urlsplit(self.url).port
        assert port is not None, self.url  # the proxy's ready line always names its port
        return port

    def _fail_on_blocked(self, contained: ContainedCommand, stdout: Any, stderr: Any) -> None:
        """Fail the test on the trap's connections, then the model API hosts the output names."""
        import pytest

        from harness.core.wires import is_live_api_host
        from harness.proxy import BlockedConnection, unreachable_hosts

        found = list(contained.blocked)
        output = "\n".join(_text(stream) for stream in (stdout, stderr))
        named = {b.host.lower() for b in found}
        for host in unreachable_hosts(output):
            if is_live_api_host(host) and host not in named:
                found.append(BlockedConnection(host, _API_PORT, "lookup"))
        if not found:
            return
        self.blocked += found
        assert self.containment is not None
        pytest.fail(found[0].message(self.containment, self._port()), pytrace=False)


def _end(process: subprocess.Popen[Any]) -> None:
    """Kill ``process`` if it still runs, and wait for it."""
    if process.poll() is None:
        process.kill()
    process.wait()


def _text(stream: object) -> str:
    """A captured stream as text (``text=True`` or bytes); nothing when not captured."""
    if isinstance(stream, bytes):
        return stream.decode("utf-8", "replace")
    return stream if isinstance(stream, str) else ""
