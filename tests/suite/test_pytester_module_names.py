"""A pytester test file never shares its module name with one of the suite's own.

pytester's inner runs import their files under the basename as module name; when
an xdist worker has already imported the suite's own ``test_live`` (say), an
inner ``test_live.py`` fails to collect with "import file mismatch", in some test
orders only. The shuffled CI run found one; this keeps the next one out.
"""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
_MADE = re.compile(r"makepyfile\(\s*(test_\w+)\s*=")


def test_pytester_files_do_not_shadow_the_suites_modules() -> None:
    own = {path.stem for path in TESTS.rglob("test_*.py")}
    clashes = sorted(
        f"{path.relative_to(TESTS)}: {name}"
        for path in TESTS.rglob("*.py")
        for name in _MADE.findall(path.read_text("utf-8"))
        if name in own
    )
    assert not clashes, (
        "these pytester files share a module name with a test module of the suite; "
        f"rename them: {clashes}"
    )
