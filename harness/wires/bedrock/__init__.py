"""Amazon Bedrock Converse (``/model/{modelId}/converse`` and ``converse-stream``), read only.

Bedrock is a traffic-only wire: harness reads its cassettes (boto3's traffic)
into traffic traces, eval rows and transcripts, but has no runtime provider or
simulator for it.

- ``eventstream``: AWS's binary ``application/vnd.amazon.eventstream`` framing,
  decoded with both CRCs checked (boto3 is not needed);
- ``traffic``: a recorded exchange read for the traffic trace;
- ``transcript``: a sent Converse message read as a transcript line.
"""

from __future__ import annotations

__all__: list[str] = []
