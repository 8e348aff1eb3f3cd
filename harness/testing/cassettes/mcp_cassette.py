"""The ``mcp_cassette`` fixture: record and replay the MCP servers of any agent.

An agent that starts its own servers through the ``mcp`` SDK (or a framework on
it: pydantic-ai, the Agents SDK) is given a stand-in instead of each server:

* stdio: ``mcp_cassette.command("files", "npx", [...])`` returns the command to
  start; replaying, ``python -m harness.mcp.replay <cassette>`` answers from the
  recording with no server process; recording, the same module relays to the
  real server and records every line;
* streamable HTTP: ``mcp_cassette.url("search", "https://...")`` returns a
  loopback URL served from the recording (or forwarded to the real endpoint
  and recorded);
* ``mcp_cassette.servers({...mcpServers...})`` rewrites a whole config.

Under ``--harness-tools live`` the stand-ins relay to the real servers (the
command is started, the URL is forwarded to) and compare each ``tools/call``
answer with the recorded answer to the same request (:mod:`harness.mcp._live`);
:meth:`McpCassetteFixture.changes` lists the differences, and the first fails
the test as a named divergence (:mod:`harness.testing.plugin.tools_live`).

The cassette is ``<test name>.mcp.json`` beside the model cassette the test's
``llm_cassette`` opens, by the same path rules (model folder, stream, epoch:
``harness.testing.cassettes.mcp_recording.fixture_mcp_cassette``); the record mode is the
plugin's; replay misses fail the test at teardown with the request and the
nearest recorded one.
"""

from __future__ import annotations

import json
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.core.errors import CassetteError, ConfigurationError

__all__ = ["McpCassetteFixture"]

_RECORDING_MODES = frozenset({"new_episodes", "all", "rewrite"})

# ``python -m harness.mcp.replay ARGS`` with this process's harness first on the path:
# the SDK starts a stdio server with a minimal environment (no PYTHONPATH), and the
# stand-in must be the harness the test runs, not another one installed.
_BOOT = (
    "import runpy, sys; sys.path.insert(0, sys.argv.pop(1)); "
    "runpy.run_module('harness.mcp.replay', run_name='__main__', alter_sys=True)"
)


def _replay_module(*args: str) -> tuple[str, list[str]]:
    import harness

    root = str(Path(harness.__file__).resolve().parent.parent)
    return sys.executable, ["-c", _BOOT, root, *args]


class McpCassetteFixture:
    """Stand-ins for the MCP servers a test's agent starts; see the module docstring."""

    def __init__(
        self,
        path: Path,
        record_mode: str = "none",
        *,
        live: bool = False,
        moved_from: Path | None = None,
    ) -> None:
        self.path = path
        self.moved_from = moved_from  # the cassette at the path of an older rule, if any
        self.record_mode = record_mode
        self.recording = not live and (
            record_mode in _RECORDING_MODES or (record_mode == "once" and not path.exists())
        )
        self.live = live  # --harness-tools live: the real servers, compared with the recording
        self._work = Path(tempfile.mkdtemp(prefix="harness-mcp-"))
        self._misses = self._work / "misses.jsonl"
        self._calls = self._work / "calls.txt"
        self._changes = self._work / "changes.jsonl"
        self._changes_lock = threading.Lock()
        self._comparers: list[Any] = []
        self._seen_changes: list[Any] | None = None
        self._parts: dict[str, Path] = {}
        self._stand_ins: list[Any] = []
        self._recorders: dict[str, Any] = {}
        self._players: list[Any] = []
        self._names: set[str] = set()
        self._cassette: Any = None
        self._cassette_written: Any = None
        self.calls: dict[str, int] = {}

    @property
    def real_servers(self) -> bool:
        """Whether the real servers run in this test (recording, or tools live): a test
        that starts an HTTP server itself starts it only then."""
        return self.recording or self.live

    # -- what the agent is given ---------------------------------------------------

    def command(self, server: str, command: str, args: Sequence[str] = ()) -> tuple[str, list[str]]:
        """The command (and arguments) to start instead of ``command args``."""
        self._claim(server)
        if self.recording:
            part = self._parts[server] = self._work / f"{server}.mcp.json"
            return _replay_module(str(part), "--server", server, "--record", "--", command, *args)
        self._tape(server)  # fails now, in the test, when there is nothing to replay
        if self.live:
            return _replay_module(
                str(self.path),
                *("--server", server, "--live", "--changes", str(self._changes)),
                *("--calls", str(self._calls), "--", command, *args),
            )
        return _replay_module(
            str(self.path),
            *("--server", server, "--misses", str(self._misses), "--calls", str(self._calls)),
        )

    def stdio(self, server: str, params: Any) -> Any:
        """An SDK ``StdioServerParameters`` with its command replaced."""
        command, args = self.command(server, params.command, list(params.args))
        return params.model_copy(update={"command": command, "args": args})

    def url(self, server: str, url: str) -> str:
        """A loopback URL standing in for the streamable HTTP endpoint ``url``."""
        from harness.mcp import McpHttpStandIn, TapePlayer, TapeRecorder

        self._claim(server)
        if self.recording:
            from harness.core.urls import shown_url

            shown = shown_url(url).partition("?")[0]  # a login or a query may hold a key
            recorder = self._recorders[server] = TapeRecorder("http", shown)
            stand_in = McpHttpStandIn(observer=recorder, upstream=url)
        elif self.live:
            from harness.mcp import LiveComparer

            comparer = LiveComparer(server, self._tape(server), on_change=self._note_change)
            self._comparers.append(comparer)
            stand_in = McpHttpStandIn(observer=comparer, upstream=url)
        else:
            player = TapePlayer(server, self._tape(server), cassette=self.path)
            self._players.append(player)
            stand_in = McpHttpStandIn(player=player)
        self._stand_ins.append(stand_in.start())
        return stand_in.url

    def servers(self, config: Mapping[str, Any]) -> dict[str, Any]:
        """An ``mcpServers`` config (whole, or its inner mapping) with every server replaced."""
        inner = config.get("mcpServers", config)
        rewritten: dict[str, Any] = {}
        for name, entry in inner.items():
            entry = dict(entry)
            if "url" in entry:
                entry["url"] = self.url(name, entry["url"])
            elif "command" in entry:
                entry["command"], entry["args"] = self.command(
                    name, entry["command"], entry.get("args", ())
                )
            rewritten[name] = entry
        return {"mcpServers": rewritten} if "mcpServers" in config else rewritten

    # -- --harness-tools live -------------------------------------------------------

    def changes(self) -> list[Any]:
        """The live answers unlike their recordings so far (``ResultChange``), in order."""
        from harness.mcp import ResultChange

        if self._seen_changes is not None:
            return list(self._seen_changes)
        if not self._changes.exists():
            return []
        with self._changes_lock:
            lines = self._changes.read_text("utf-8").splitlines()
        return [ResultChange.from_json(line) for line in lines if line.strip()]

    def _note_change(self, change: Any) -> None:
        # One file for every server, the stdio relays' and the HTTP stand-ins': the
        # order of the lines is the order the changes were seen in.
        with self._changes_lock, self._changes.open("a", encoding="utf-8") as file:
            file.write(change.to_json() + "\n")

    # -- teardown --------------------------------------------------------------------

    def close(self) -> None:
        """Stop the stand-ins, write a recording, raise the misses of a replay."""
        for stand_in in self._stand_ins:
            stand_in.stop()
        self._stand_ins.clear()
        if self.recording:
            self._save()
        self.calls = self._counted_calls()
        misses = self._collected_misses()
        self._seen_changes = self.changes()  # kept: the folder that holds them goes
        import shutil

        shutil.rmtree(self._work, ignore_errors=True)
        if misses:
            from harness.mcp import McpCassetteMiss

            raise McpCassetteMiss(misses)

    def tapes(self) -> list[tuple[str, Any]]:
        """Each server's tape this test recorded or replayed, by name."""
        from harness.mcp import load_cassette

        if self.recording:
            if not self.path.exists():
                return []
            return list(load_cassette(self.path).servers.items())
        if self._cassette is None:
            return []
        return [(name, self._cassette.servers[name]) for name in sorted(self._names)]

    def _counted_calls(self) -> dict[str, int]:
        """``tools/call`` requests answered, by server: recorded ones, or replayed ones."""
        counts: dict[str, int] = {}
        if self.recording:
            tapes = [(s, r.tape) for s, r in self._recorders.items()]
            if self._cassette_written is not None:
                tapes += list(self._cassette_written.servers.items())
            for server, tape in tapes:
                answered = [
                    e for e in tape.exchanges if e.method == "tools/call" and e.error is None
                ]
                counts[server] = counts.get(server, 0) + len(answered)
            return counts
        for player in [*self._players, *self._comparers]:
            counts[player.server] = counts.get(player.server, 0) + player.calls
        if self._calls.exists():
            for line in self._calls.read_text("utf-8").split():
                counts[line] = counts.get(line, 0) + 1
        return counts

    def _save(self) -> None:
        from harness.mcp import McpCassette, load_cassette, now_stamp, save_cassette

        if not self._parts and not self._recorders:
            return
        cassette = McpCassette(recorded_at=now_stamp())
        for part in self._parts.values():
            if part.exists():
                cassette.servers.update(load_cassette(part).servers)
        self._cassette_written = cassette.model_copy(deep=True)  # the parts, for the count
        for server, recorder in self._recorders.items():
            cassette.servers[server] = recorder.tape
        save_cassette(cassette, self.path)

    def _collected_misses(self) -> list[Any]:
        from harness.mcp import McpExchange, McpMiss

        misses = [miss for player in self._players for miss in player.misses]
        if self._misses.exists():
            for line in self._misses.read_text("utf-8").splitlines():
                record = json.loads(line)
                nearest = record.get("nearest")
                misses.append(
                    McpMiss(
                        record["server"],
                        record["method"],
                        record.get("params"),
                        None if nearest is None else McpExchange.model_validate(nearest),
                        record.get("difference"),
                        self.path,
                    )
                )
        return misses

    # -- helpers ---------------------------------------------------------------------

    def _claim(self, server: str) -> None:
        if server in self._names:
            raise ConfigurationError(
                f"mcp_cassette: server {server!r} was already given a stand-in in this test; "
                "give each server its own name"
            )
        self._names.add(server)

    def _tape(self, server: str) -> Any:
        from harness.mcp import load_cassette

        if self._cassette is None:
            if not self.path.exists() and self.moved_from is not None:
                old, new = self.moved_from, self.path
                raise CassetteError(
                    f"no MCP cassette at {new}, but there is one at {old}, where it was "
                    "recorded before it followed the model cassette's folder; move it "
                    f"(mkdir -p {new.parent} && git mv {old} {new})"
                )
            if not self.path.exists():
                raise CassetteError(
                    f"no MCP cassette at {self.path}; record it once with --record-mode=once "
                    "(the MCP servers then run live)"
                )
            self._cassette = load_cassette(self.path)
        tape = self._cassette.servers.get(server)
        if tape is None:
            held = ", ".join(sorted(self._cassette.servers)) or "none"
            raise CassetteError(
                f"MCP cassette {self.path} has no recording of server {server!r} (it holds "
                f"{held}); re-record with --record-mode=rewrite"
            )
        return tape
