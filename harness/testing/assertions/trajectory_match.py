"""Trajectory matching: a run's tool calls against the calls a test expects.

The terms are agentevals' (``trajectory_match_mode``, ``tool_args_match_mode``,
``tool_args_match_overrides``), plus Google ADK's ``IN_ORDER``; each mode names
what the *actual* trajectory is, relative to the expected one:

- ``strict``: the same calls in the same order (ADK ``EXACT``);
- ``unordered``: the same calls, any order (the same multiset);
- ``superset``: at least the expected calls, extras allowed (ADK ``ANY_ORDER``);
- ``subset``: no call beyond the expected ones (some may be missing);
- ``in_order``: the expected calls in their order, extras allowed between (ADK
  ``IN_ORDER``).

A call is matched to at most one other (multisets, not sets). Whether two calls
of the same tool match is decided by their arguments, relative to the expected:

- ``exact``: equal; ``ignore``: not compared;
- ``superset``: the actual arguments hold every expected key with its value
  (extra keys allowed); ``subset``: every actual key is expected, with that value.

``per_tool`` overrides the mode for one tool name with another mode, a list of
keys that must be equal (dotted for nested ones), or a function
``(actual_args, expected_args) -> bool``. An expected call given without
arguments matches any arguments. agentevals swaps the two sides in its
``subset`` trajectory mode; here ``args`` means the same in every mode.

``match_trajectory`` decides; ``explain_mismatch`` says why not (pairs aligned,
the first difference, how to fix). Both are pure: ``harness.testing.assertions.trajectory``
reads the calls from traces.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal, get_args

from harness.core import ConfigurationError

__all__ = [
    "ArgsMode",
    "ArgsRule",
    "ArgumentsUnavailable",
    "Call",
    "Policy",
    "TrajectoryMode",
    "arguments_hash",
    "explain_mismatch",
    "match_trajectory",
]

TrajectoryMode = Literal["strict", "unordered", "subset", "superset", "in_order"]
ArgsMode = Literal["exact", "ignore", "subset", "superset"]
ArgsRule = ArgsMode | Sequence[str] | Callable[[Mapping[str, Any], Mapping[str, Any]], bool]

MATCH_MODES: Final = get_args(TrajectoryMode)
ARGS_MODES: Final = get_args(ArgsMode)
_SHOWN_CHARS: Final = 60
# The mode that ignores only the order: a failure it passes is an order problem.
_LOOSER: Final[dict[str, TrajectoryMode]] = {"strict": "unordered", "in_order": "superset"}


class ArgumentsUnavailable(Exception):
    """A comparison needs argument values the trace does not keep (only their hash)."""

    def __init__(self, call: Call, rule: str) -> None:
        super().__init__(call.name)
        self.call = call
        self.rule = rule


@dataclass(frozen=True)
class Call:
    """One tool call: expected (``args`` None: any) or actual (``args`` None: not kept).

    Attributes:
        name: the tool's name.
        args: the arguments; None when any will do (expected) or the trace has
            only their hash (actual, a metadata trace).
        argument_hash: the trace's hash of the arguments (actual calls).
        faithful: the ``args`` are the arguments as sent (not redacted or truncated).
        output: an output tool's call (the answer), not an action.
    """

    name: str
    args: Mapping[str, Any] | None = None
    argument_hash: str | None = None
    faithful: bool = True
    output: bool = False

    def label(self) -> str:
        """``read(path='a.txt')``; ``read(...)`` for any arguments, ``read(#hash)`` unknown."""
        if self.args is None:
            inner = f"#{self.argument_hash}" if self.argument_hash else "..."
        else:
            inner = ", ".join(f"{k}={_short(v)}" for k, v in self.args.items())
        return f"{self.name}({inner})"


@dataclass(frozen=True)
class Policy:
    """How two calls of one tool are compared: ``args``, overridden per tool name."""

    args: ArgsMode = "exact"
    per_tool: Mapping[str, ArgsRule] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.args not in ARGS_MODES:
            raise ConfigurationError(
                f"args={self.args!r} is not an argument match mode; use one of "
                f"{', '.join(ARGS_MODES)}"
            )
        for name, rule in self.per_tool.items():
            if isinstance(rule, str) and rule not in ARGS_MODES:
                raise ConfigurationError(
                    f"per_tool[{name!r}]={rule!r} is not an argument match mode; use one of "
                    f"{', '.join(ARGS_MODES)}, a list of keys, or a function (actual, expected)"
                )
            if not isinstance(rule, str | Sequence) and not callable(rule):
                raise ConfigurationError(
                    f"per_tool[{name!r}] must be a mode, a list of keys or a function "
                    f"(actual, expected) -> bool, not {type(rule).__name__}"
                )

    def rule(self, name: str) -> ArgsRule:
        return self.per_tool.get(name, self.args)

    def matches(self, expected: Call, actual: Call) -> bool:
        """Whether ``actual`` is a call ``expected`` describes.

        Raises:
            ArgumentsUnavailable: the comparison needs values the trace lacks.
        """
        if expected.name != actual.name or expected.args is None:
            return expected.name == actual.name
        rule = self.rule(expected.name)
        if rule == "ignore":
            return True
        if rule == "exact":
            if actual.args is not None and actual.faithful:
                return dict(actual.args) == dict(expected.args)
            if actual.argument_hash is not None:
                return arguments_hash(expected.args) == actual.argument_hash
            raise ArgumentsUnavailable(actual, "exact")
        if actual.args is None:
            raise ArgumentsUnavailable(actual, rule if isinstance(rule, str) else "per_tool")
        return _compare(rule, actual.args, expected.args)


def arguments_hash(args: Mapping[str, Any]) -> str:
    """The ``argument_hash`` harness's traces give ``args`` (stable JSON, hashed)."""
    from harness.traffic.wire import STABLE_JSON, digest  # where the traces get theirs

    return digest(STABLE_JSON(dict(args)))


def _compare(rule: ArgsRule, actual: Mapping[str, Any], expected: Mapping[str, Any]) -> bool:
    if rule == "superset":
        return all(k in actual and actual[k] == v for k, v in expected.items())
    if rule == "subset":
        return all(k in expected and expected[k] == v for k, v in actual.items())
    if isinstance(rule, str):  # exact and ignore are decided by the caller
        raise AssertionError(rule)
    if isinstance(rule, Sequence):
        return all(_nested(actual, key) == _nested(expected, key) for key in rule)
    return bool(rule(actual, expected))


def _nested(args: Mapping[str, Any], key: str) -> Any:
    value: Any = args
    for part in key.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 3] + "..."


# -- deciding ------------------------------------------------------------------------

Pairs = Callable[[int, int], bool]


def match_trajectory(
    expected: Sequence[Call], actual: Sequence[Call], match: TrajectoryMode, policy: Policy
) -> bool:
    """Whether ``actual`` fits ``expected`` under ``match`` (see the module docstring).

    Raises:
        ConfigurationError: ``match`` is not a mode.
        ArgumentsUnavailable: a comparison needs argument values the trace lacks.
    """
    if match not in MATCH_MODES:
        raise ConfigurationError(
            f"match={match!r} is not a trajectory match mode; use one of {', '.join(MATCH_MODES)}"
        )
    fits = _pairs(expected, actual, policy)
    if match == "strict":
        return len(expected) == len(actual) and all(fits(i, i) for i in range(len(actual)))
    if match == "in_order":
        return _in_order(len(expected), len(actual), fits)
    if match == "superset":
        return _matching(len(expected), len(actual), fits) == len(expected)
    if match == "subset":
        return _matching(len(expected), len(actual), fits) == len(actual)
    return len(expected) == len(actual) and _matching(len(expected), len(actual), fits) == len(
        actual
    )


def _pairs(expected: Sequence[Call], actual: Sequence[Call], policy: Policy) -> Pairs:
    memo: dict[tuple[int, int], bool] = {}

    def fits(i: int, j: int) -> bool:
        if (i, j) not in memo:
            memo[(i, j)] = policy.matches(expected[i], actual[j])
        return memo[(i, j)]

    return fits


def _in_order(expected: int, actual: int, fits: Pairs) -> bool:
    # The earliest fitting call for each expected one: a later choice never helps.
    i = 0
    for j in range(actual):
        if i < expected and fits(i, j):
            i += 1
    return i == expected


def _matching(expected: int, actual: int, fits: Pairs) -> int:
    """The size of a maximum matching of expected to actual calls (Kuhn)."""
    return len(_assignment(expected, actual, fits))


def _assignment(expected: int, actual: int, fits: Pairs) -> dict[int, int]:
    """A maximum matching as ``{actual index: expected index}``."""
    owner: dict[int, int] = {}

    def place(i: int, seen: set[int]) -> bool:
        for j in range(actual):
            if j in seen or not fits(i, j):
                continue
            seen.add(j)
            if j not in owner or place(owner[j], seen):
                owner[j] = i
                return True
        return False

    for i in range(expected):
        place(i, set())
    return owner


# -- explaining -----------------------------------------------------------------------


@dataclass(frozen=True)
class _Row:
    expected: int | None
    actual: int | None
    same: bool  # the pair matches (arguments included)


def explain_mismatch(
    expected: Sequence[Call], actual: Sequence[Call], match: TrajectoryMode, policy: Policy
) -> str:
    """The two trajectories aligned, what differs, and how to fix it (for a failed match)."""
    fits = _pairs(expected, actual, policy)
    loose = _LOOSER.get(match)
    if loose is not None and match_trajectory(expected, actual, loose, policy):
        # Every call is there (and no extra one, for strict), in another order.
        rows = _paired(expected, actual, fits)
        problems = [_out_of_order(expected, actual, fits)]
    else:
        ordered = loose is not None
        rows = _aligned(expected, actual, fits) if ordered else _paired(expected, actual, fits)
        problems = _problems(rows, expected, actual, match, policy)
    table = _table(rows, expected, actual, match)
    first = problems[0] if problems else "the trajectories differ"
    return (
        f"first difference: {first}\n\n{table}\n"
        + "".join(f"  - {line}\n" for line in problems[1:6])
        + (f"  ... {len(problems) - 6} more\n" if len(problems) > 6 else "")
        + f"how to fix: {_advice(problems, match)}"
    )


def _aligned(expected: Sequence[Call], actual: Sequence[Call], fits: Pairs) -> list[_Row]:
    """An order-keeping alignment: most matching pairs, then most same-name pairs."""
    n, m = len(expected), len(actual)
    score = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            pair = 0
            if expected[i].name == actual[j].name:
                pair = 3 if fits(i, j) else 1
            best = max(score[i + 1][j], score[i][j + 1])
            score[i][j] = max(best, score[i + 1][j + 1] + pair) if pair else best
    rows: list[_Row] = []
    i = j = 0
    while i < n or j < m:
        if i < n and j < m and expected[i].name == actual[j].name:
            pair = 3 if fits(i, j) else 1
            if score[i][j] == score[i + 1][j + 1] + pair:
                rows.append(_Row(i, j, pair == 3))
                i, j = i + 1, j + 1
                continue
        if j < m and (i == n or score[i][j] == score[i][j + 1]):
            rows.append(_Row(None, j, False))
            j += 1
        else:
            rows.append(_Row(i, None, False))
            i += 1
    return rows


def _paired(expected: Sequence[Call], actual: Sequence[Call], fits: Pairs) -> list[_Row]:
    """Matching pairs (a maximum matching), then same-name leftovers; in actual order."""
    owner = _assignment(len(expected), len(actual), fits)
    taken = set(owner.values())
    for j in range(len(actual)):
        if j in owner:
            continue
        near = next(
            (i for i, e in enumerate(expected) if i not in taken and e.name == actual[j].name),
            None,
        )
        if near is not None:
            owner[j] = near
            taken.add(near)
    rows = [_Row(owner.get(j), j, j in owner and fits(owner[j], j)) for j in range(len(actual))]
    rows += [_Row(i, None, False) for i in range(len(expected)) if i not in taken]
    return rows


def _problems(
    rows: list[_Row],
    expected: Sequence[Call],
    actual: Sequence[Call],
    match: TrajectoryMode,
    policy: Policy,
) -> list[str]:
    found: list[str] = []
    for row in rows:
        if row.expected is not None and row.actual is not None and not row.same:
            e, a = expected[row.expected], actual[row.actual]
            found.append(
                f"expected call {row.expected + 1} {e.label()} and actual call {row.actual + 1} "
                f"{a.label()} differ in arguments ({_why(e, a, policy)})"
            )
        elif row.actual is None and row.expected is not None and match != "subset":
            found.append(
                f"missing: expected call {row.expected + 1} "
                f"{expected[row.expected].label()} was not made"
            )
        elif row.expected is None and row.actual is not None and match in _NO_EXTRAS:
            found.append(
                f"extra: actual call {row.actual + 1} {actual[row.actual].label()} "
                "is not in the expected trajectory"
            )
    return found


def _why(expected: Call, actual: Call, policy: Policy) -> str:
    rule = policy.rule(expected.name)
    shown = rule if isinstance(rule, str) else "per_tool"
    if actual.args is None or expected.args is None:
        return f"args={shown}: the argument hashes differ"
    if not isinstance(rule, str):
        return f"per_tool[{expected.name!r}] said no"
    keys = sorted(set(expected.args) | set(actual.args))
    diffs = []
    for key in keys:
        want, got = expected.args.get(key, _ABSENT), actual.args.get(key, _ABSENT)
        if want == got:
            continue
        if want is _ABSENT and rule == "superset":
            continue  # an extra key is allowed
        if got is _ABSENT and rule == "subset":
            continue  # a missing key is allowed
        diffs.append(f"{key}: expected {_shown(want)}, got {_shown(got)}")
    note = "" if actual.faithful else "; the trace's arguments are redacted or truncated"
    return f"args={shown}: " + ("; ".join(diffs) or "they differ") + note


_ABSENT: Final = object()
_NO_EXTRAS: Final = ("strict", "unordered", "subset")


def _shown(value: Any) -> str:
    return "nothing" if value is _ABSENT else _short(value)


def _out_of_order(expected: Sequence[Call], actual: Sequence[Call], fits: Pairs) -> str:
    # Called when every expected call has its own actual one but no pairing keeps the
    # expected order: the first pair that breaks it is the one to report.
    owner = _assignment(len(expected), len(actual), fits)
    last: tuple[int, int] | None = None
    for j in sorted(owner):
        i = owner[j]
        if last is not None and i < last[0]:
            return (
                f"out of order: expected call {i + 1} {expected[i].label()} came as actual "
                f"call {j + 1}, after expected call {last[0] + 1} (actual call {last[1] + 1})"
            )
        last = (i, j)
    return "out of order: the calls are the expected ones in another order"


def _table(rows: list[_Row], expected: Sequence[Call], actual: Sequence[Call], match: str) -> str:
    def cell(calls: Sequence[Call], index: int | None) -> str:
        return "-" if index is None else f"{index + 1}. {calls[index].label()}"

    left = [cell(expected, r.expected) for r in rows]
    width = min(max([len("expected"), *map(len, left)]), 70)
    lines = [f"    {'expected':<{width}}    actual"]
    for row, text in zip(rows, left, strict=True):
        if row.expected is not None and row.actual is not None:
            mark, note = ("==", "") if row.same else ("!=", "  <- arguments differ")
        elif row.actual is None:
            mark, note = ("  ", "  <- missing" if match != "subset" else "  (allowed: subset)")
        else:
            allowed = match in ("superset", "in_order")
            mark, note = ("  ", f"  (allowed: {match})" if allowed else "  <- extra")
        lines.append(f"    {text:<{width}} {mark} {cell(actual, row.actual)}{note}")
    return "\n".join(lines)


def _advice(problems: list[str], match: str) -> str:
    tips = []
    if any(p.startswith("extra") for p in problems):
        tips.append("add the extra calls to `expected`, or use match='superset' to allow them")
    if any(p.startswith("missing") for p in problems):
        tips.append(
            "the agent never made the missing calls: check its prompt or recording, or drop "
            "them from `expected` (match='subset' allows fewer calls)"
        )
    if any("differ in arguments" in p for p in problems):
        tips.append(
            "compare fewer arguments: args='superset' checks only the keys you list, "
            "per_tool={'name': 'ignore' | [keys] | fn} loosens one tool"
        )
    if any(p.startswith("out of order") for p in problems):
        looser = "superset" if match == "in_order" else "unordered"
        tips.append(f"use match={looser!r} when the order does not matter")
    return "; ".join(tips) or f"check the expected calls against the actual ones (match={match!r})"
