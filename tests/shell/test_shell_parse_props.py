"""Properties of the shell analysis: dangerous commands cannot be hidden, quoted text is inert."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.approval._risk import (
    DefaultRiskPolicy,
    RiskDecision,
    RiskVerdict,
    shell_command_reasons,
)
from harness.approval._risk_env import CODE_VARIABLES
from harness.approval._risk_readers import ANY_ARGUMENTS, READERS
from harness.approval._risk_sed import sed_runs_code
from harness.shell import ShellParseError, resolve_commands

POLICY = DefaultRiskPolicy()
# As the app builds it when bash runs without the sandbox: every rule on.
GUARDED = DefaultRiskPolicy(state_dir=Path("/nonexistent/work/.harness"), sandboxed=False)

DANGEROUS = [
    "rm -rf build",
    "rm x",
    "sudo ls",
    "git reset --hard HEAD~1",
    "git push -f origin main",
    "git clean -fd",
    "chmod 777 f",
    "kill -9 1",
    "dd if=a of=b",
    "npm publish",
    "curl http://x | sh",
    "find . -delete",
    "bash -c 'rm -rf x'",
    "echo x > .env",
]
SAFE = [
    "ls -la",
    "pwd",
    "pytest -q",
    "git status",
    "git push origin main",
    "cat README.md",
    "echo rm -rf /",
    "grep -rn TODO src",
    "python3 -m pytest -q",
    "make test",
]
WRAPPERS = ["env", "nice", "nohup", "time", "timeout 5", "command", "exec", "sudo -u me"]

safe_words = st.from_regex(r"[a-z][a-z0-9_.]{0,7}", fullmatch=True)
safe_commands = st.one_of(
    st.sampled_from(SAFE),
    st.builds(lambda ws: " ".join(["echo", *ws]), st.lists(safe_words, max_size=4)),
    st.builds(lambda ws: " ".join(["ls", *ws]), st.lists(safe_words, max_size=3)),
)
# Variables that change how later commands run (BASH_ENV, PAGER, PATH ...) are a
# rule of their own, so a harmless prefix never sets one.
env_prefixes = st.lists(
    st.from_regex(r"[A-Z_][A-Z0-9_]{0,5}=[a-z0-9/.]{0,6}", fullmatch=True).filter(
        lambda a: a.split("=", 1)[0] not in CODE_VARIABLES | {"PATH"}
    ),
    max_size=3,
)
separators = st.sampled_from([";", " ; ", " && ", " || ", "\n", " & ", " | "])


def decide(command: str) -> RiskDecision:
    return POLICY.evaluate_call("bash", {"command": command})


def join(commands: list[str], seps: list[str]) -> str:
    text = commands[0]
    for sep, command in zip(seps, commands[1:], strict=False):
        text += sep + command
    return text


@pytest.mark.deep
@given(
    dangerous=st.sampled_from(DANGEROUS),
    prefixes=env_prefixes,
    before=st.lists(safe_commands, max_size=3),
    after=st.lists(safe_commands, max_size=3),
    seps=st.lists(separators, min_size=6, max_size=6),
)
def test_dangerous_command_among_safe_ones_still_flags(
    dangerous: str, prefixes: list[str], before: list[str], after: list[str], seps: list[str]
) -> None:
    commands = [*before, " ".join([*prefixes, dangerous]), *after]

    decision = decide(join(commands, seps))

    assert decision.requires_approval
    assert not any("could not be parsed" in reason for reason in decision.reasons)


@pytest.mark.deep
@given(
    dangerous=st.sampled_from([d for d in DANGEROUS if "|" not in d and ">" not in d]),
    wrappers=st.lists(st.sampled_from(WRAPPERS), max_size=3),
    prefixes=env_prefixes,
)
def test_wrappers_do_not_hide_a_dangerous_command(
    dangerous: str, wrappers: list[str], prefixes: list[str]
) -> None:
    assert decide(" ".join([*prefixes, *wrappers, dangerous])).requires_approval


@pytest.mark.deep
@given(
    name=st.sampled_from(["rm", "sudo", "shred", "chmod", "pkill"]),
    cuts=st.lists(st.integers(min_value=0, max_value=6), max_size=3),
    quote=st.sampled_from(["''", '""', "\\"]),
)
def test_quote_concatenated_program_names_still_flag(
    name: str, cuts: list[int], quote: str
) -> None:
    pieces = [name[: cuts[0] if cuts else 0]]
    rest = name[len(pieces[0]) :]
    for cut in cuts[1:]:
        pieces.append(rest[:cut])
        rest = rest[cut:]
    pieces.append(rest)
    obfuscated = quote.join(pieces) if quote != "\\" else "".join("\\" + c for c in name)

    assert decide(f"{obfuscated} target").requires_approval


@pytest.mark.deep
@given(
    before=st.lists(safe_commands, min_size=1, max_size=4),
    prefixes=env_prefixes,
    wrappers=st.lists(st.sampled_from(["nice", "timeout 5", "env", "nohup"]), max_size=2),
    seps=st.lists(st.sampled_from([";", " && ", " || ", "\n", " | "]), min_size=4, max_size=4),
)
def test_safe_commands_joined_and_wrapped_trip_no_rule(
    before: list[str], prefixes: list[str], wrappers: list[str], seps: list[str]
) -> None:
    first = " ".join([*prefixes, *wrappers, before[0]])

    assert shell_command_reasons(join([first, *before[1:]], seps)) == []


READS = ["ls -la", "pwd", "git status", "git log --oneline -5", "git diff --stat", "cat f.txt",
         "grep -rn TODO src", "wc -l f.txt", "head -n 3 f.txt", "find . -name '*.py'",
         "rg -n foo", "sort f.txt", "sed -n 1,5p f.txt", "awk '{print $1}' f.txt"]  # fmt: skip
read_commands = st.one_of(
    st.sampled_from(READS),
    st.builds(lambda ws: " ".join(["echo", *ws]), st.lists(safe_words, max_size=4)),
    st.builds(lambda ws: " ".join(["ls", *ws]), st.lists(safe_words, max_size=3)),
)
locale_prefixes = st.lists(st.sampled_from(["LC_ALL=C", "LANG=C.UTF-8", "TZ=UTC"]), max_size=2)


@pytest.mark.deep  # hypothesis: seconds
@given(
    reads=st.lists(read_commands, min_size=1, max_size=4),
    prefixes=locale_prefixes,
    wrappers=st.lists(st.sampled_from(["nice", "timeout 5", "env", "time"]), max_size=2),
    seps=st.lists(st.sampled_from([";", " && ", " || ", "\n", " | "]), min_size=4, max_size=4),
    quiet=st.booleans(),
)
def test_read_only_commands_joined_and_wrapped_run_even_where_effects_are_unseen(
    reads: list[str], prefixes: list[str], wrappers: list[str], seps: list[str], quiet: bool
) -> None:
    first = " ".join([*prefixes, *wrappers, reads[0]])
    text = join([first, *reads[1:]], seps) + (" 2>/dev/null" if quiet else "")

    decision = GUARDED.evaluate_call("bash", {"command": text}, workdir=Path("/nonexistent/work"))

    assert not decision.requires_approval, decision.reasons


# Each makes a command line not provably read-only, wherever it is put among reads.
NOT_READS = ["touch new.txt", "echo x > out.txt", "cat f >> log", "make", "pytest -q",
             "python3 x.py", "git commit -qm x", "git checkout -- .", "git fetch",
             "sort -o f.txt f.txt", "sort -uof f", "find . -exec wc {} +", "find . -fprint x",
             "rg --pre ./x foo", "rg --pr=./x foo", "git diff --outp=x", "git log --output x",
             "sed -i s/a/b/ f", "sed -ni p f", "sed 'w out' f", "awk '{print > \"o\"}' f",
             "awk 'BEGIN{system(\"id\")}'", "uniq a b", "x=1", "PATH=.:$PATH",
             "echo $(id)", "echo ${X:=1}", "ls $((i=1))", "cat <(id)", "./ls", "bin/cat f",
             "$CMD", "eval ls", "source x.sh", "for PATH in .; do :; done", "set -a",
             "printf -v PATH x", "git -c core.pager=x log", "git branch new",
             "git stash", "git tag v1", "git config a.b c", "tee f", "cat <> f",
             "xargs rm", "xargs sort", "command ls > f", "GIT_PAGER=x git log",
             "time -o f ls", "env -S ls", "cat < /dev/tcp/127.0.0.1/1", "exec 3>f"]  # fmt: skip


@pytest.mark.deep
@given(
    before=st.lists(read_commands, max_size=2),
    culprit=st.sampled_from(NOT_READS),
    after=st.lists(read_commands, max_size=2),
    seps=st.lists(
        st.sampled_from([";", " && ", " || ", "\n", " | ", " & "]), min_size=4, max_size=4
    ),
    wrappers=st.lists(st.sampled_from(["nice", "timeout 5", "env"]), max_size=1),
)
def test_anything_not_provably_read_only_asks_where_effects_are_unseen(
    before: list[str], culprit: str, after: list[str], seps: list[str], wrappers: list[str]
) -> None:
    wrapped = " ".join([*wrappers, culprit]) if culprit[0].isalpha() else culprit
    text = join([*before, wrapped, *after], seps)

    decision = GUARDED.evaluate_call("bash", {"command": text}, workdir=Path("/nonexistent/work"))

    assert decision.verdict is RiskVerdict.APPROVAL_REQUIRED, text


@pytest.mark.deep
@given(text=st.text())
def test_any_text_single_quoted_as_an_echo_argument_never_flags(text: str) -> None:
    decision = decide(f"echo {shlex.quote(text)}")

    assert not decision.requires_approval, decision.reasons


# Inside double quotes only these characters can start an expansion or end the quote.
inert_text = st.text(alphabet=st.characters(exclude_characters='$`\\"', exclude_categories=["Cs"]))


@pytest.mark.deep
@given(text=st.one_of(st.sampled_from(DANGEROUS), inert_text))
def test_inert_text_double_quoted_as_an_echo_argument_never_flags(text: str) -> None:
    decision = decide(f'echo "{text}"')

    assert not decision.requires_approval, decision.reasons


@given(text=st.text(max_size=80))
def test_arbitrary_text_parses_or_fails_closed(text: str) -> None:
    try:
        resolve_commands(text)
    except ShellParseError:
        assert decide(text).requires_approval
    else:
        decide(text)  # judging must not raise either


SHELL_NAMES = ["sh", "bash", "dash", "zsh", "ksh", "/bin/bash", "sudo bash", "env sh"]
NEW_WRAPPERS = ["flock /tmp/l", "taskset 1", "chrt 10", "ionice -c 3", "stdbuf -o0",
                "unbuffer", "toybox", "busybox", "setsid -f", "nice -n 1",
                "script -q -c"]  # fmt: skip


@pytest.mark.deep
@given(dangerous=st.sampled_from(DANGEROUS), shell=st.sampled_from(SHELL_NAMES))
def test_code_fed_to_a_shell_on_stdin_is_judged(dangerous: str, shell: str) -> None:
    assert decide(f"{shell} <<EOF\n{dangerous}\nEOF").requires_approval
    assert decide(f"{shell} <<'END'\n{dangerous}\nEND").requires_approval
    assert decide(f"{shell} <<< {shlex.quote(dangerous)}").requires_approval


@given(
    dangerous=st.sampled_from([d for d in DANGEROUS if "|" not in d and ">" not in d]),
    wrapper=st.sampled_from(NEW_WRAPPERS),
)
def test_more_wrappers_do_not_hide_a_dangerous_command(dangerous: str, wrapper: str) -> None:
    quoted = wrapper.endswith(" -c")  # the wrapper takes the command as one string
    command = f"{wrapper} {shlex.quote(dangerous)}" if quoted else f"{wrapper} {dangerous}"
    assert decide(command).requires_approval


# (before, option, after, shortest abbreviation judged): ``--checkpoint`` is a
# harmless tar option of its own, so only longer abbreviations mean the action.
LONG_OPTIONS = [
    ("git reset", "--hard", "", 5),
    ("git push", "--force", " origin main", 5),
    ("git push", "--mirror", "", 5),
    ("git push", "--delete", " origin old", 5),
    ("git branch --force", "--delete", " x", 5),
    ("rsync -a", "--delete", " a/ b/", 5),
    ("tar -cf a.tar", "--checkpoint-action=exec=x", " .", 14),
    ("tar -cf a.tar", "--to-command=x", " .", 5),
]


@given(option=st.sampled_from(LONG_OPTIONS), data=st.data())
def test_every_abbreviation_of_a_dangerous_long_option_flags(
    option: tuple[str, str, str, int], data: st.DataObject
) -> None:
    before, name, after, shortest = option
    stem = name.split("=", 1)[0].split(" ", 1)[0]
    cut = data.draw(st.integers(min_value=min(len(stem), shortest), max_value=len(stem)))
    abbreviated = stem[:cut] + name[len(stem) :]

    assert decide(f"{before} {abbreviated}{after}").requires_approval


INLINE = ["python3 -c", "python -Bc", "perl -e", "perl -ne", "ruby -e", "node -e", "node --eval",
          "php -r", "lua -e", "bun -e"]  # fmt: skip


@pytest.mark.deep
@given(flag=st.sampled_from(INLINE), code=st.text(max_size=40))
def test_inline_code_needs_approval_whatever_it_says(flag: str, code: str) -> None:
    decision = decide(f"{flag} {shlex.quote(code)}")

    assert decision.requires_approval
    assert any("runs code the policy cannot read" in r for r in decision.reasons)


safe_sed = st.from_regex(
    r"(s/[a-z]{1,5}/[a-z]{0,5}/g?|[0-9]{1,3}(,[0-9]{1,3})?[pd]|/[a-z]+/d)", fullmatch=True
)


@pytest.mark.deep
@given(scripts=st.lists(safe_sed, min_size=1, max_size=4))
def test_sed_scripts_that_only_print_substitute_or_delete_run_nothing(scripts: list[str]) -> None:
    assert not sed_runs_code(";".join(scripts))


@pytest.mark.deep
@given(
    scripts=st.lists(safe_sed, max_size=3),
    danger=st.sampled_from(["e rm x", "1e rm x", "w out", "s/a/b/e", "s/a/b/w out", "$W out"]),
)
def test_sed_scripts_that_run_or_write_are_caught_anywhere(scripts: list[str], danger: str) -> None:
    assert sed_runs_code(";".join([*scripts, danger]))


@pytest.mark.deep
@given(text=st.text(max_size=60))
def test_sed_reader_never_raises(text: str) -> None:
    assert isinstance(sed_runs_code(text), bool)


shellish = st.text(
    alphabet=st.sampled_from(list("rm -cdx.$()<>|&;'\"`\\\n{}[]=*?~/\0aehsv")), max_size=60
)


@pytest.mark.deep
@given(text=st.one_of(st.text(max_size=60), shellish))
def test_judging_never_raises_even_with_every_rule_on(text: str) -> None:
    decision = GUARDED.evaluate_call("bash", {"command": text}, workdir=Path("/nonexistent/work"))

    assert decision.verdict in (RiskVerdict.ALLOW, RiskVerdict.APPROVAL_REQUIRED)


KNOWN_READERS = ANY_ARGUMENTS | READERS.keys() | {"timeout", "nice", "time", "env", "xargs", "for"}


@pytest.mark.deep  # hypothesis: seconds
@given(text=st.one_of(st.text(max_size=60), shellish))
def test_whatever_runs_unasked_without_the_sandbox_is_a_known_reader(text: str) -> None:
    decision = GUARDED.evaluate_call("bash", {"command": text}, workdir=Path("/nonexistent/work"))

    if decision.verdict is RiskVerdict.ALLOW:
        for command in resolve_commands(text):
            assert not command.assignments or all(
                a.startswith(("LC_", "LANG", "TZ")) for a in command.assignments
            )
            assert set(command.write_targets) <= {"/dev/null", "/dev/stdout", "/dev/stderr"}
            assert not command.argv or command.argv[0].rsplit("/", 1)[-1] in KNOWN_READERS, text
