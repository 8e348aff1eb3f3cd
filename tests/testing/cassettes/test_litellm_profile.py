"""The ``litellm`` profile (pytester + the simulator + real LiteLLM): ``import litellm``
inside a test records and replays with ``--harness-block-live``, its price-map
download kept off the network; without the profile the replay's import crashes."""

from __future__ import annotations

import importlib.util
import os
from typing import Any

import pytest

from harness.simulator import SimulatorServer
from harness.testing.cassettes.llm_config import resolve_config
from harness.testing.profile_hooks import profile_hooks

SIM_SCRIPT: dict[str, Any] = {
    "version": 1,
    "rules": [{"when": {"last_user_contains": "say hello"}, "reply": "hello"}],
}

# LiteLLM imported inside the test, in a fresh process: its import-time price-map
# download happens with the cassette open, as in a user's first test.
LITELLM_TEST = """
import os, threading
import pytest

@pytest.mark.llm_cassette(**SETTINGS)
def test_completion(llm_cassette):
    import litellm
    response = litellm.completion(
        model="openai/gpt-4.1-mini",
        messages=[{"role": "user", "content": "say hello"}],
        api_base=llm_cassette.base_url("openai"),
        api_key=os.environ["OPENAI_API_KEY"],
    )
    assert response.choices[0].message.content == "hello"
    # No fetch failed: nothing retries it in the background after the test.
    assert "litellm-model-cost-map-retry" not in [t.name for t in threading.enumerate()]
"""


def test_the_profile_makes_the_price_map_host_offline_and_sets_litellm_offline() -> None:
    config = resolve_config(None, {"profile": "litellm", "offline_hosts": ["example.org"]})
    assert config.offline_hosts == ("raw.githubusercontent.com", "example.org")
    assert config.ignore_body_fields == ()
    before = os.environ.get("LITELLM_LOCAL_MODEL_COST_MAP")
    with profile_hooks(config.profiles):
        assert os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] == "True"
        assert os.environ["LITELLM_OFFLINE_MODE"] == "true"
    assert os.environ.get("LITELLM_LOCAL_MODEL_COST_MAP") == before
    with profile_hooks(()):
        assert os.environ.get("LITELLM_LOCAL_MODEL_COST_MAP") == before


@pytest.mark.deep
def test_litellm_imported_in_a_test_records_and_replays_offline_only_with_the_profile(
    pytester: pytest.Pytester, sim: SimulatorServer
) -> None:
    # Not importorskip: importing LiteLLM here would download its price map.
    if importlib.util.find_spec("litellm") is None:
        # In the test extra; a machine installed without it skips, saying how to add it.
        pytest.skip("needs litellm: pip install -e '.[test]' (or pip install litellm)")
    pytester.makepyfile(test_llm=LITELLM_TEST.replace("**SETTINGS", 'profile="litellm"'))
    args = ("-p", "no:randomly", "--assert=plain")
    record = pytester.runpytest_subprocess(
        *args, "--record-mode", "once", "--harness-base-url", sim.url
    )
    record.assert_outcomes(passed=1)
    stored = (pytester.path / "cassettes" / "test_llm" / "test_completion.yaml").read_text()
    assert "githubusercontent" not in stored and stored.count("harness_match") == 1
    hits = sim.hits
    pytester.runpytest_subprocess(*args, "--harness-block-live").assert_outcomes(passed=1)
    assert sim.hits == hits  # the replay reached nothing

    # Without the profile the import's download meets the network guard, an error
    # LiteLLM does not catch: the test fails at `import litellm`.
    pytester.makepyfile(test_llm=LITELLM_TEST.replace("**SETTINGS", ""))
    bare = pytester.runpytest_subprocess(*args, "--harness-block-live")
    bare.assert_outcomes(failed=1)
    text = bare.stdout.str()
    assert "GET /BerriAI/litellm/main/model_prices_and_context_window.json" in text
    assert "raw.githubusercontent.com" in text and "import litellm" in text
