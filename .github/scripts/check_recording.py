"""Refuse a recording that is not what the record job claims it is.

    python .github/scripts/check_recording.py [--live] [--since ISO-TIME] CASSETTE_DIR

Reads the ``harness:`` metadata block of every cassette under CASSETTE_DIR and
fails (exit 1, one line per problem) when:

- there is no cassette at all;
- ``--since`` is given and a cassette was recorded before it: the job replayed
  an old file instead of recording a new one (``--record-mode once`` did that);
- ``--live`` is given and a cassette was recorded against ``harness sim``
  (``recorded_against`` ends in ``(harness simulator)``) or says nowhere what it
  was recorded against: a simulator recording must never be labelled live.
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime
from pathlib import Path

import yaml

from harness.recording import CassetteMetadata

SIMULATOR_MARK = "(harness simulator)"


def problems(folder: Path, *, live: bool, since: datetime | None) -> list[str]:
    """Every reason the recordings under ``folder`` are not what was claimed."""
    found = sorted(folder.rglob("*.yaml"))
    if not found:
        return [f"{folder}: no cassette was recorded"]
    wrong: list[str] = []
    for path in found:
        data = yaml.safe_load(path.read_text("utf-8")) or {}
        try:
            meta = CassetteMetadata.model_validate(data.get("harness"))
        except ValueError as exc:
            wrong.append(f"{path}: no valid harness metadata ({exc.__class__.__name__})")
            continue
        recorded_at = datetime.fromisoformat(meta.recorded_at)
        if since is not None and recorded_at < since:
            wrong.append(
                f"{path}: recorded at {meta.recorded_at}, before this job started "
                f"({since.isoformat()}): it was replayed, not recorded"
            )
        against = meta.recorded_against or ""
        if live and (not against or against.endswith(SIMULATOR_MARK)):
            wrong.append(
                f"{path}: recorded against {against or 'an unknown host'}, "
                "yet this job labels it live"
            )
    return wrong


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--live", action="store_true", help="refuse simulator recordings")
    parser.add_argument("--since", type=datetime.fromisoformat, default=None)
    args = parser.parse_args(argv)
    wrong = problems(args.folder, live=args.live, since=args.since)
    for line in wrong:
        print(f"refused: {line}", file=sys.stderr)
    if not wrong:
        print(f"ok: every cassette under {args.folder} was recorded by this job")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
