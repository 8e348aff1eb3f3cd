"""Settings are read in one place: harness.settings (issue #48).

Every ``os.environ`` / ``os.getenv`` read in harness/ outside harness/settings/
is refused unless ``ALLOWED`` names it, with the reason. What harness itself is
configured by belongs in ``Settings`` (one description, one line in the settings
reference); what stays here are other programs' variables: the SDKs', the
standard ones (PATH, XDG_*, SSL_*), pytest's and xdist's, and places that hand
the whole environment on to a child process.
"""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path
from typing import NamedTuple

from tests.source_tree import parsed

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "harness"
SETTINGS = PACKAGE / "settings"

# (file under harness/, what is read) -> why it is not a setting. ``what`` is the
# variable's name as written (a literal or the expression holding it), or
# ``os.environ`` for the whole environment.
ALLOWED: dict[tuple[str, str], str] = {
    ("cli/_main.py", "os.environ"): "the sandbox check looks at the whole environment",
    ("effects/_gitindex.py", "'PATH'"): "git's PATH, handed to the git child",
    ("effects/_gitrefs.py", "'PATH'"): "git's PATH, handed to the git child",
    ("providers/credentials.py", "variable"): "an SDK's own key / base-URL variable",
    ("_speed/tls.py", "'SSL_CERT_FILE'"): "OpenSSL's standard variable",
    ("_speed/tls.py", "'SSL_CERT_DIR'"): "OpenSSL's standard variable",
    ("tracing/otel.py", "'OTEL_SERVICE_NAME'"): "the OpenTelemetry SDK's own variable",
    ("recording/_secrets.py", "name"): "the values of secret variables, to scrub them",
    ("tools/sandbox/_confinement.py", "os.environ"): "the environment the sandbox filters",
    ("tools/sandbox/_hidden.py", "os.environ"): "XDG_STATE_HOME (the XDG standard)",
    ("tools/builtin/_bash.py", "os.environ"): "the environment bash's filter starts from",
    ("approval/keyfile.py", "os.environ"): "XDG_STATE_HOME (the XDG standard)",
    ("mcp/_config.py", "os.environ"): "the user's ${VAR}s in an MCP server config",
    ("proxy/_contain.py", "os.environ"): "the environment of the contained child",
    ("proxy/_bridge_in.py", "os.environ"): "the environment of the bridge child",
    ("testing/plugin/__init__.py", "key"): "the wires' SDK key variables (is a live test runnable)",
    ("testing/plugin/rootdir.py", "'PYTEST_ADDOPTS'"): "pytest's own variable",
    ("testing/options.py", "'PYTEST_DISABLE_PLUGIN_AUTOLOAD'"): "pytest's own variable",
    ("testing/rows/mutant_mode.py", "'PYTEST_XDIST_WORKER'"): "pytest-xdist's own variable",
    ("testing/cassettes/llm_cassette.py", "v"): "the SDK key variables a cassette names",
    (
        "testing/cassettes/llm_cassette.py",
        "name",
    ): "saved to restore after the cassette's variables",
    ("testing/cassettes/recorded.py", "v"): "the SDK key variables of a recorded provider",
    ("testing/profile_hooks.py", "name"): "saved to restore after a profile's variables",
    ("testing/cassettes/llm_proxy.py", "os.environ"): "the environment of the recorded child",
    ("wires/gemini/provider.py", "KEY_ENV"): "the Gemini SDK's own key variable",
    ("wires/gemini/provider.py", "_OTHER_KEY_ENV"): "the Gemini SDK's other key variable",
}


_SPELLED = re.compile(r"environ|getenv")


class Read(NamedTuple):
    path: str  # under harness/
    line: int
    what: str

    def __str__(self) -> str:
        return f"harness/{self.path}:{self.line} reads {self.what}"


def _environ(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "environ"
        and isinstance(node.value, ast.Name)
        and node.value.id == "os"
    )


def reads_in(tree: ast.Module, path: str) -> list[Read]:
    """Every read of the environment in ``tree``; writes (set, pop, update) are not reads."""
    # ast.walk goes breadth first: a node's parent and grandparent are known by the
    # time the node itself is looked at.
    parents: dict[ast.AST, ast.AST] = {}
    found: list[Read] = []
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
        if isinstance(node, ast.ImportFrom) and node.module == "os":
            for alias in node.names:
                if alias.name in ("environ", "getenv", "environb", "getenvb"):
                    found.append(Read(path, node.lineno, f"from os import {alias.name}"))
        elif isinstance(node, ast.Call) and ast.unparse(node.func) in ("os.getenv", "os.getenvb"):
            what = ast.unparse(node.args[0]) if node.args else "os.getenv"
            found.append(Read(path, node.lineno, what))
        elif _environ(node):
            parent = parents.get(node)
            grand = parents.get(parent) if parent is not None else None
            if isinstance(parent, ast.Subscript) and parent.value is node:
                if isinstance(parent.ctx, ast.Load):
                    found.append(Read(path, node.lineno, ast.unparse(parent.slice)))
            elif isinstance(parent, ast.Attribute) and isinstance(grand, ast.Call):
                if parent.attr == "get" and grand.args:
                    found.append(Read(path, node.lineno, ast.unparse(grand.args[0])))
                elif parent.attr not in ("update", "pop", "setdefault", "__setitem__"):
                    found.append(Read(path, node.lineno, "os.environ"))
            else:
                found.append(Read(path, node.lineno, "os.environ"))
    return sorted(found)


def environ_reads(package: Path = PACKAGE) -> list[Read]:
    """The reads in every module of ``package`` outside its settings package."""
    found: list[Read] = []
    for file in sorted(package.rglob("*.py")):
        if (package / "settings") in file.parents:
            continue
        # Every read spells one of these words; most modules spell neither.
        if not _SPELLED.search(file.read_text("utf-8")):
            continue
        found += reads_in(parsed(file), file.relative_to(package).as_posix())
    return found


def refused(reads: list[Read]) -> list[str]:
    return [str(read) for read in reads if (read.path, read.what) not in ALLOWED]


def test_harness_reads_its_settings_only_through_harness_settings() -> None:
    bad = refused(environ_reads())
    assert not bad, (
        "read these through harness.settings (a Settings field and env_value), or add "
        "them to ALLOWED with the reason they are not harness's settings:\n  " + "\n  ".join(bad)
    )


def test_every_allowed_read_is_still_there() -> None:
    used = {(read.path, read.what) for read in environ_reads()}
    stale = sorted(f"{path}: {what}" for path, what in set(ALLOWED) - used)
    assert not stale, f"ALLOWED names reads that are gone; remove them: {stale}"


def test_a_planted_read_is_named_by_file_and_line(tmp_path: Path) -> None:
    package = tmp_path / "harness"
    (package / "settings").mkdir(parents=True)
    (package / "settings" / "_environ.py").write_text("import os\nos.environ.get('HARNESS_X')\n")
    (package / "evals").mkdir()
    planted = textwrap.dedent(
        """\
        import os
        from os import getenv

        def f() -> None:
            os.environ["PYTEST_ADDOPTS"] = "-q"
            os.environ.update({"A": "1"})
            mode = os.environ.get("HARNESS_TRACE_MODE", "metadata")
            other = os.getenv("HARNESS_OTHER")
            whole = dict(os.environ)
            one = os.environ["HARNESS_ONE"]
        """
    )
    (package / "evals" / "planted.py").write_text(planted)
    assert refused(environ_reads(package)) == [
        "harness/evals/planted.py:2 reads from os import getenv",
        "harness/evals/planted.py:7 reads 'HARNESS_TRACE_MODE'",
        "harness/evals/planted.py:8 reads 'HARNESS_OTHER'",
        "harness/evals/planted.py:9 reads os.environ",
        "harness/evals/planted.py:10 reads 'HARNESS_ONE'",
    ]


def test_env_value_is_asked_only_for_settings_fields() -> None:
    from harness.settings import Settings

    unknown = []
    for file in sorted(PACKAGE.rglob("*.py")):
        if "env_value" not in file.read_text("utf-8"):
            continue
        for node in ast.walk(parsed(file)):
            if isinstance(node, ast.Call) and ast.unparse(node.func) == "env_value":
                field = node.args[0]
                name = field.value if isinstance(field, ast.Constant) else None
                if name not in Settings.env_variables():
                    where = f"{file.relative_to(ROOT)}:{node.lineno}"
                    unknown.append(f"{where} asks {ast.unparse(field)}")
    assert not unknown, f"env_value needs a literal Settings field: {unknown}"
