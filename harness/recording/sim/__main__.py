"""``python -m harness.recording.sim --script FILE --port N``."""

from harness.recording.sim._serve import main

main()
