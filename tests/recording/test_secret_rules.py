"""The maintained secret rules (detect-secrets plus harness's) in every body format.

Each case of issue 41 that reached a cassette is recorded through the real
openai SDK (or httpx2 for a plain form post) against a loopback server: a key
that no name marks is refused, a credential-named field is stored as REDACTED
(JSON at any depth, form, multipart), and ``harness cassettes check`` finds each
of them in a file written by another tool, a YAML comment included. The fake
keys are assembled at run time, so no scanner mistakes this file for a leak.
"""

from __future__ import annotations

import json
import string
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from harness.cli import app
from harness.core import CassetteError
from harness.recording import scan_cassette_file, use_cassette
from harness.recording._forms import redact_form, redact_multipart
from harness.recording._redact import REDACTED, is_credential_param, redact_body
from tests.loopback import serving

from .helpers import OPENAI_KEY
from .wire import completion, wire_server

_ALNUM = string.ascii_letters + string.digits


def _fake(prefix: str, length: int, alphabet: str = _ALNUM) -> str:
    body = (alphabet * (length // len(alphabet) + 1))[7 : 7 + length]
    return prefix + body


GITHUB = _fake("gh" + "p_", 36)
HUGGING_FACE = _fake("h" + "f_", 34, string.ascii_letters)
NPM = _fake("np" + "m_", 36)
SLACK = "xo" + "xb-" + "2417302711-5913285910-" + _fake("", 24, "abcdefghijklmnop0123456789")
PEM = (
    "-----BEGIN "
    + "RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM\n-----END RSA PRIVATE KEY-----"
)
# Values named like a credential but of no known shape: only a name rule can catch them.
AUTH = "authValue4Tk9Qm2Lp7Xv8Rn3"
PASSPHRASE = "correct horse battery staple"
SECRET_STRING = '{"db_password": "hunter2"}'
FORM_SECRET = "formSecret9Qm2Lp7Xv4Rt8Kn3Wz"
PART_SECRET = "partSecret3Fq9Lm2Xp7Vt4Rk8"


def _client(base: str) -> openai.OpenAI:
    return openai.OpenAI(
        api_key=OPENAI_KEY, base_url=base + "/v1", max_retries=0, http_client=httpx2.Client()
    )


@pytest.mark.parametrize(
    "leak",
    [
        pytest.param(f"GITHUB_TOKEN={GITHUB}", id="github-env-line"),
        pytest.param(f"export HF_TOKEN={HUGGING_FACE}", id="hugging-face"),
        pytest.param(f"NPM_TOKEN={NPM}", id="npm"),
        pytest.param(f"the bot uses {SLACK}", id="slack"),
        pytest.param(f"my key:\n{PEM}\n", id="pem-private-key"),
    ],
)
def test_a_key_quoted_in_a_prompt_is_refused(tmp_path: Path, leak: str) -> None:
    path = tmp_path / "leak.yaml"
    with (
        wire_server() as server,
        _client(server.base()) as client,
        pytest.raises(CassetteError, match=r"(?s)refusing to save .*interaction 0, request\.body"),
        use_cassette(path, record_mode="once"),
    ):
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": leak}])
    assert list(tmp_path.iterdir()) == []


def test_credential_fields_at_any_depth_are_redacted_and_still_match(tmp_path: Path) -> None:
    path = tmp_path / "fields.yaml"
    extra = {
        "metadata": {"deploy": [{"auth": AUTH, "key_passphrase": PASSPHRASE}]},
        "tool_state": json.dumps({"passphrase": PASSPHRASE}),  # JSON inside a string
    }
    answer = {**completion(), "secret": {"SecretString": SECRET_STRING, "auth": [AUTH]}}
    with wire_server() as server:
        server.answer = answer
        for mode in ("once", "none"):  # record, then replay with the live values
            with _client(server.base()) as client, use_cassette(path, record_mode=mode):
                replayed = client.chat.completions.create(
                    model="m", messages=[{"role": "user", "content": "hi"}], extra_body=extra
                )
            server.stop()
    text = path.read_text(encoding="utf-8")
    for secret in (AUTH, "correct horse", "hunter2"):
        assert secret not in text
    assert replayed.model_extra and replayed.model_extra["secret"]["SecretString"] == REDACTED
    assert scan_cassette_file(path) == []


@contextmanager
def _upload_server() -> Iterator[tuple[str, list[bytes]]]:
    """A loopback server that answers any POST with an OpenAI file object."""
    seen: list[bytes] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            seen.append(self.rfile.read(int(self.headers.get("content-length", "0"))))
            out = json.dumps(
                {"id": "file-1", "object": "file", "bytes": 3, "created_at": 1}
                | {"filename": "a.txt", "purpose": "assistants", "status": "processed"}
            ).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        def log_message(self, format: str, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with serving(server):
        yield f"http://127.0.0.1:{server.server_address[1]}", seen


def test_a_multipart_upload_has_its_credential_part_redacted(tmp_path: Path) -> None:
    path = tmp_path / "upload.yaml"
    with (
        _upload_server() as (base, seen),
        _client(base) as client,
        use_cassette(path, record_mode="once"),
    ):
        client.files.create(
            file=("a.txt", b"file text"), purpose="assistants", extra_body={"api_key": PART_SECRET}
        )
    assert PART_SECRET.encode() in seen[0]  # the live request did carry it
    text = path.read_text(encoding="utf-8")
    assert PART_SECRET not in text
    body = yaml.safe_load(text)["interactions"][0]["request"]["body"]
    assert 'name="api_key"\r\n\r\nREDACTED\r\n' in body and "file text" in body
    assert scan_cassette_file(path) == []


def test_a_form_post_has_its_credential_field_redacted(tmp_path: Path) -> None:
    path = tmp_path / "form.yaml"
    form = {"grant_type": "client_credentials", "client_secret": FORM_SECRET, "scope": "a b"}
    with _upload_server() as (base, _), httpx2.Client() as client:
        for mode in ("once", "none"):
            with use_cassette(path, record_mode=mode) as cassette:
                client.post(f"{base}/oauth/token", data=form).raise_for_status()
    assert cassette.report.played == 1
    text = path.read_text(encoding="utf-8")
    assert FORM_SECRET not in text
    assert "grant_type=client_credentials&client_secret=REDACTED&scope=a+b" in text


# --- harness cassettes check on files another tool wrote -------------------------------


def _cassette(
    request_body: Any = "ok",
    uri: str = "https://h.test/v1",
    request_headers: dict[str, list[str]] | None = None,
    **response: Any,
) -> str:
    headers = request_headers or {}
    interaction = {
        "request": {"method": "POST", "uri": uri, "body": request_body, "headers": headers},
        "response": {
            "status": {"code": 200, "message": "OK"},
            "headers": response.get("headers", {}),
            "body": {"string": response.get("body", "ok")},
        },
    }
    return yaml.safe_dump({"version": 1, "interactions": [interaction]})


_MULTIPART = (
    '--b1\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nfine\r\n'
    f'--b1\r\nContent-Disposition: form-data; name="api_key"\r\n\r\n{PART_SECRET}\r\n--b1--\r\n'
)
_SSE = f'data: {{"type": "session", "client_secret": "{PASSPHRASE}"}}\n\ndata: [DONE]\n\n'
CHECKED = [
    pytest.param(
        "# recorded with " + f"HF_TOKEN={HUGGING_FACE}\n" + _cassette(), "line 1", id="yaml-comment"
    ),
    pytest.param(_cassette(json.dumps({"a": [{"auth": "a short one"}]})), "'auth'", id="json-auth"),
    pytest.param(
        _cassette(json.dumps({"a": [{"auth": AUTH}]})), "request.body: ", id="json-auth-2"
    ),
    pytest.param(
        _cassette(json.dumps({"x": {"passphrase": PASSPHRASE}})), "'passphrase'", id="passphrase"
    ),
    pytest.param(
        _cassette(body=json.dumps({"SecretString": SECRET_STRING})), "'SecretString'", id="aws"
    ),
    pytest.param(_cassette("grant_type=x&client_secret=hunter2"), "client_secret", id="form"),
    pytest.param(_cassette(_MULTIPART), "'api_key'", id="multipart"),
    pytest.param(_cassette(body=_SSE), "'client_secret'", id="event-stream"),
    pytest.param(_cassette(uri=f"https://h.test/repos/{GITHUB}/x"), "GitHub Token", id="url-path"),
    pytest.param(_cassette(f"say {SLACK}"), "Slack Token", id="slack"),
    pytest.param(_cassette(PEM), "rivate key", id="pem"),
    pytest.param(_cassette(f"NPM_TOKEN={NPM}"), "npm token", id="npm"),
    pytest.param(
        _cassette(request_headers={"Cookie": ["session=hunter2"]}),
        "request.headers.Cookie: credential header kept",
        id="cookie",
    ),
]


@pytest.mark.parametrize("value", ["<filtered>", "REDACTED", "AUTHORIZATION-XXX", ""])
def test_a_header_another_tool_filtered_is_clean(tmp_path: Path, value: str) -> None:
    path = tmp_path / "filtered.yaml"
    path.write_text(_cassette(request_headers={"authorization": [value]}), encoding="utf-8")
    assert scan_cassette_file(path) == []


@pytest.mark.parametrize(("content", "named"), CHECKED)
def test_cassettes_check_finds_it(tmp_path: Path, content: str, named: str) -> None:
    path = tmp_path / "foreign.yaml"
    path.write_text(content, encoding="utf-8")
    done = CliRunner().invoke(app, ["cassettes", "check", str(path)])
    assert done.exit_code == 1, done.output
    assert named in done.output
    for secret in (HUGGING_FACE, AUTH, "horse battery", "hunter2", FORM_SECRET, PART_SECRET):
        assert secret not in done.output
    assert GITHUB not in done.output and SLACK not in done.output and NPM not in done.output


@pytest.mark.deep  # scans 5 MB: about 3 s
def test_the_committed_cassettes_stay_clean() -> None:
    root = Path(__file__).resolve().parents[2]
    done = CliRunner().invoke(
        app, ["cassettes", "check", str(root / "cassettes"), str(root / "examples" / "cassettes")]
    )
    assert done.exit_code == 0, done.output


# --- the form and multipart rules, by property -----------------------------------------

_NAME = st.text(string.ascii_lowercase + "_", min_size=1, max_size=10)
_VALUE = st.text(_ALNUM + "%+.-", max_size=12)


@given(st.lists(st.tuples(_NAME, _VALUE), min_size=1, max_size=6))
def test_a_form_changes_only_at_its_credential_values(pairs: list[tuple[str, str]]) -> None:
    text = "&".join(f"{name}={value}" for name, value in pairs)
    found: list[str] = []
    redacted = redact_form(text, is_credential_param, found, REDACTED)
    expected = [
        (n, REDACTED if v and v != REDACTED and is_credential_param(n) else v) for n, v in pairs
    ]
    assert redacted == "&".join(f"{n}={v}" for n, v in expected)
    assert found == [n for (n, v), (_, w) in zip(pairs, expected, strict=True) if v != w]


_PART = st.tuples(_NAME, st.binary(max_size=40).filter(lambda b: b"--bound" not in b))


@given(st.lists(_PART, min_size=1, max_size=5))
def test_multipart_changes_only_credential_parts(parts: list[tuple[str, bytes]]) -> None:
    def body(items: list[tuple[str, bytes]]) -> bytes:
        chunks = [
            b'--bound\r\nContent-Disposition: form-data; name="%s"\r\n\r\n%s\r\n'
            % (name.encode(), value)
            for name, value in items
        ]
        return b"".join(chunks) + b"--bound--\r\n"

    original = body(parts)
    expected = [(n, REDACTED.encode() if v and is_credential_param(n) else v) for n, v in parts]
    redacted = redact_multipart(original, is_credential_param, None, REDACTED)
    assert redacted == body(expected)
    if expected == parts:
        assert redacted is original  # nothing to redact: the very same bytes


@given(st.text(max_size=200))
def test_redacting_text_without_credential_names_keeps_it(text: str) -> None:
    lowered = text.lower()
    if any(hint in lowered for hint in ("key", "token", "secret", "pass", "credential", "auth")):
        return
    assert redact_body(text) is text
