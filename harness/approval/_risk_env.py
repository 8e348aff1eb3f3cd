"""Shell state that changes how later commands run: variables and stored code.

``BASH_ENV=x bash``, ``LD_PRELOAD=``, ``PROMPT_COMMAND=``, ``BASH_ALIASES[ls]=rm``
or a relative ``PATH`` entry make a later, harmless-looking command run other
code; a quoted ``a[$(cmd)]`` runs its substitution when bash evaluates it as
arithmetic, and ``${x@P}`` runs the substitutions stored in ``x``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable

from harness.shell import ResolvedCommand

__all__ = ["CODE_VARIABLES", "assignment_reasons", "stored_code"]

# Variables through which a value makes later commands run other code.
CODE_VARIABLES = frozenset(
    {"BASH_ENV", "ENV", "PROMPT_COMMAND", "PS0", "PS1", "PS2", "PS4", "LD_PRELOAD",
     "LD_LIBRARY_PATH", "LD_AUDIT", "BASH_ALIASES", "BASH_CMDS", "SHELLOPTS", "BASHOPTS",
     "BASH_LOADABLES_PATH", "PERL5OPT", "RUBYOPT", "NODE_OPTIONS", "GIT_SSH",
     "GIT_SSH_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR",
     "GIT_ASKPASS", "GIT_PROXY_COMMAND", "GIT_EXEC_PATH", "GIT_CONFIG_GLOBAL",
     "GIT_CONFIG_SYSTEM", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_TEMPLATE_DIR",
     "PAGER", "MANPAGER", "EDITOR", "VISUAL", "SSH_ASKPASS", "SUDO_ASKPASS", "LESSOPEN",
     "LESSCLOSE", "BROWSER", "CDPATH"}
)  # fmt: skip
_DECLARERS = frozenset({"export", "declare", "typeset", "local", "readonly"})
_VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


# A quoted ``a[$(cmd)]`` is inert where it is written, but bash runs the substitution
# when it evaluates the text as arithmetic later (``$((x))``, ``let``, ``[[ x -eq 1 ]]``).
_SUBSCRIPT_CODE = re.compile(r"\[[^\]]*(\$\(|`)")
_PROMPT_EXPANSION = re.compile(r"\$\{[^}]*@P\}")


# Commands that only print their arguments: a subscript in them is text, never evaluated.
_PRINTERS = frozenset({"echo"})


def _prints_only(command: ResolvedCommand) -> bool:
    return command.name in _PRINTERS or (command.name == "printf" and "-v" not in command.argv)


def stored_code(command: ResolvedCommand) -> str | None:
    words = [a for i, a in enumerate(command.argv) if not command.is_dynamic(i)]
    if _prints_only(command):
        words = []
    if any(_SUBSCRIPT_CODE.search(w) for w in [*words, *command.assignments]):
        return "a subscript holding a command substitution runs when bash evaluates it"
    if any(_PROMPT_EXPANSION.search(a) for a in command.argv):
        return "${var@P} runs the command substitutions stored in var"
    return None


def assignment_reasons(command: ResolvedCommand) -> Iterable[str]:
    words = list(command.assignments)
    if command.name in _DECLARERS:
        words.extend(a for a in command.argv[1:] if not a.startswith(("-", "+")))
    if command.name in ("read", "mapfile", "readarray"):
        words.extend(a + "=" for a in command.argv[1:] if _VARIABLE_NAME.fullmatch(a))
    if command.name == "printf":
        words.extend(v + "=" for o, v in itertools.pairwise(command.argv) if o == "-v")
    for word in words:
        name, _, value = word.partition("=")
        name = name.split("[", 1)[0].rstrip("+")
        targets = (name, value) if command.name in _DECLARERS else (name,)
        if any(t in CODE_VARIABLES or t.startswith("BASH_FUNC_") for t in targets):
            yield f"changes how later commands run: {word} (sets {name})"
        elif name == "PATH" and _relative_path_entry(value):
            yield f"changes how later commands run: {word} (PATH entry that is not absolute)"


def _relative_path_entry(value: str) -> bool:
    entries = value.split(":")
    return any(not e or not (e.startswith(("/", "$", "~"))) for e in entries)
