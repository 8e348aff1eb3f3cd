"""``python -m harness.simulator --script FILE --port N``."""

from harness.simulator._serve import main

main()
