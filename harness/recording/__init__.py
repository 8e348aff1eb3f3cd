"""Record and replay real provider HTTP traffic (vcrpy cassettes).

``use_cassette`` wraps vcrpy so that the official OpenAI and Anthropic SDKs record
to and replay from readable cassettes, matched through an index on method, path
and normalized JSON body. The simulator that cassettes are often recorded
against is a server of its own, :mod:`harness.simulator`.
"""

from harness.recording._canonical import VCRPY_MATCH_ON
from harness.recording._check import check_cassettes, scan_cassette_file
from harness.recording._errors import (
    NetworkBlockedError,
    UnmatchedRequestError,
    passthrough,
    unwrap_cassette_error,
)
from harness.recording._guard import block_network
from harness.recording._kinds import TrafficKind, is_model_call, traffic_kind
from harness.recording._matching import normalize_body
from harness.recording._metadata import METADATA_KEY, SIMULATOR_HEADER, CassetteMetadata
from harness.recording._modes import RecordMode, parse_record_mode
from harness.recording._secrets import Finding
from harness.recording._served import ServedCassette
from harness.recording._session import (
    CassetteHandle,
    CassetteReport,
    recording_active,
    use_cassette,
)
from harness.recording._stored import (
    StoredCassette,
    StoredInteraction,
    decode_content,
    read_cassette,
)
from harness.recording._telemetry import is_telemetry

__all__ = [
    "METADATA_KEY",
    "SIMULATOR_HEADER",
    "VCRPY_MATCH_ON",
    "CassetteHandle",
    "CassetteMetadata",
    "CassetteReport",
    "Finding",
    "NetworkBlockedError",
    "RecordMode",
    "ServedCassette",
    "StoredCassette",
    "StoredInteraction",
    "TrafficKind",
    "UnmatchedRequestError",
    "block_network",
    "check_cassettes",
    "decode_content",
    "is_model_call",
    "is_telemetry",
    "normalize_body",
    "parse_record_mode",
    "passthrough",
    "read_cassette",
    "recording_active",
    "scan_cassette_file",
    "traffic_kind",
    "unwrap_cassette_error",
    "use_cassette",
]
