"""Runtime breakages for the mutation self-test: each is a ``conftest.py`` that
monkeypatches one property a scenario exists to show.

Every breakage names the eval files it targets, the scenarios (eval rows) that
must fail, and ``behaviour``: a fragment of the failure message the eval gives
when the breakage is recorded against the simulator, where no cassette can miss.
A ``flagship`` breakage (at least one per scenario) is also replayed from its
own fresh recording.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BREAKAGES", "Breakage"]


@dataclass(frozen=True)
class Breakage:
    id: str
    files: tuple[str, ...]
    fails: tuple[str, ...]
    behaviour: str
    conftest: str
    flagship: bool = False


def _autouse(body: str) -> str:
    lines = "\n".join(f"    {line}" if line else "" for line in body.strip("\n").splitlines())
    return (
        f"import pytest\n\n\n@pytest.fixture(autouse=True)\ndef breakage(monkeypatch):\n{lines}\n"
    )


REVERSED_OBSERVATIONS = _autouse("""
import dataclasses
from harness.engine._executor import ToolExecutor
real = ToolExecutor.run_tool_batch
def run_tool_batch(self, tool_calls, **kw):
    batch = real(self, tool_calls, **kw)
    observations = tuple(reversed(batch.observations))
    return dataclasses.replace(batch, observations=observations)
monkeypatch.setattr(ToolExecutor, "run_tool_batch", run_tool_batch)
""")

SWAPPED_CONTENTS = _autouse("""
import dataclasses
from harness.core import Message
from harness.engine._executor import ToolExecutor
real = ToolExecutor.run_tool_batch
def run_tool_batch(self, tool_calls, **kw):
    batch = real(self, tool_calls, **kw)
    texts = [m.content for m in reversed(batch.observations)]
    swapped = tuple(
        Message.tool(m.tool_call_id, text, m.metadata) for m, text in zip(batch.observations, texts)
    )
    return dataclasses.replace(batch, observations=swapped)
monkeypatch.setattr(ToolExecutor, "run_tool_batch", run_tool_batch)
""")

ONE_CALL_PER_TURN = _autouse("""
from harness.providers.tracking import UsageTrackingProvider
real = UsageTrackingProvider.complete
def complete(self, request):
    response = real(self, request)
    return response.model_copy(update={"tool_calls": response.tool_calls[:1]})
monkeypatch.setattr(UsageTrackingProvider, "complete", complete)
""")

READS_RUN_ONE_AFTER_ANOTHER = _autouse("""
import harness.engine._executor as executor
monkeypatch.setattr(executor, "PARALLEL_SAFE_TOOL_NAMES", frozenset())
""")

LEAKS_TEXT_IN_METADATA_MODE = _autouse("""
from harness.tracing import Tracer
real = Tracer.__init__
def init(self, *args, **kwargs):
    real(self, *args, **kwargs)
    self._replay = True
monkeypatch.setattr(Tracer, "__init__", init)
""")

USAGE_DROPPED = _autouse("""
from harness.core import Usage
from harness.wires.anthropic.provider import AnthropicProvider
from harness.wires.openai.provider import OpenAIProvider
from harness.wires.openai_responses.provider import OpenAIResponsesProvider
from harness.wires.gemini.provider import GeminiProvider
for cls in (OpenAIProvider, OpenAIResponsesProvider, AnthropicProvider, GeminiProvider):
    def complete(self, request, _real=cls.complete):
        return _real(self, request).model_copy(update={"usage": Usage()})
    monkeypatch.setattr(cls, "complete", complete)
""")

CHILD_GETS_WRITE = _autouse("""
import harness.subagent._runner as runner
from harness.tools.builtin import WriteTool
class Registry(runner.ToolRegistry):
    def __init__(self, tools=(), *args, **kwargs):
        super().__init__([*tools, WriteTool()], *args, **kwargs)
class Loop(runner.MainLoop):
    def __init__(self, *args, enabled_tools=(), **kwargs):
        super().__init__(*args, enabled_tools=(*enabled_tools, "write"), **kwargs)
monkeypatch.setattr(runner, "ToolRegistry", Registry)
monkeypatch.setattr(runner, "MainLoop", Loop)
""")

PARENT_SEES_READ = _autouse("""
import harness
from harness.tools.builtin import ReadTool
real = harness.build_application
def build_application(settings=None, **kwargs):
    app = real(settings, **kwargs)
    if "explore" in app.loop.enabled_tools:
        app.registry.register(ReadTool())
        app.loop.enabled_tools = (*app.loop.enabled_tools, "read")
    return app
monkeypatch.setattr(harness, "build_application", build_application)
""")

REPORT_CAP_LIFTED = _autouse("""
from harness.subagent._tool import ExplorerSubagentTool
real = ExplorerSubagentTool.__init__
def init(self, runner, *, max_result_chars=4000):
    real(self, runner, max_result_chars=10**6)
monkeypatch.setattr(ExplorerSubagentTool, "__init__", init)
""")

CHILD_SHARES_PARENT_SESSION = _autouse("""
import harness.subagent._runner as runner
monkeypatch.setattr(runner, "child_session_for", lambda parent, tool_call_id=None: parent)
""")

EXPLORE_RETURNS_THE_RAW_FILES = _autouse("""
from harness.subagent._tool import ExplorerSubagentTool
from harness.tools._protocol import ToolOutput
real = ExplorerSubagentTool.run
def run(self, tool_input):
    real(self, tool_input)  # the child still reads the files, but the parent gets them raw
    files = sorted(p for p in tool_input.workdir.rglob("*") if p.is_file())
    return ToolOutput("[Explorer Subagent Report]\\n" + "\\n".join(p.read_text() for p in files))
monkeypatch.setattr(ExplorerSubagentTool, "run", run)
""")

EDIT_WRITES_NOTHING = _autouse("""
from harness.tools.builtin._edit import EditTool
real = EditTool.run
def run(self, tool_input):
    path = tool_input.workdir / tool_input.arguments["path"]
    before = path.read_bytes()
    observation = real(self, tool_input)
    path.write_bytes(before)  # reports the edit, keeps the old file
    return observation
monkeypatch.setattr(EditTool, "run", run)
""")

EDIT_OVERWRITES_THE_FILE = _autouse("""
from harness.tools.builtin._edit import EditTool
real = EditTool.run
def run(self, tool_input):
    observation = real(self, tool_input)
    path = tool_input.workdir / tool_input.arguments["path"]
    path.write_text(tool_input.arguments["new_text"].strip() + "\\n")
    return observation
monkeypatch.setattr(EditTool, "run", run)
""")

APPROVAL_OFF = _autouse("""
import harness.app
def passthrough(settings, app, *required):
    return lambda ctx, nxt: nxt(ctx)
monkeypatch.setattr(harness.app, "_approval_middleware", passthrough)
""")

PAUSE_SPAN_DROPPED = _autouse("""
from harness.approval.middleware import HumanApprovalMiddleware
from harness.tracing import NullTracer
real = HumanApprovalMiddleware.__init__
def init(self, *args, **kwargs):
    real(self, *args, **kwargs)
    self.tracer = NullTracer()
monkeypatch.setattr(HumanApprovalMiddleware, "__init__", init)
""")

REJECT_RUNS_THE_CALL = _autouse("""
from harness.engine._approval_resume import ApprovalResumeRunner
real = ApprovalResumeRunner._apply
def apply(self, state, record, checkpoint, verdict, reason):
    return real(self, state, record, checkpoint, "approve", reason)
monkeypatch.setattr(ApprovalResumeRunner, "_apply", apply)
""")

REJECT_REASON_DROPPED = _autouse("""
from harness.engine._approval_resume import ApprovalResumeRunner
real = ApprovalResumeRunner._apply
def apply(self, state, record, checkpoint, verdict, reason):
    return real(self, state, record, checkpoint, verdict, None)
monkeypatch.setattr(ApprovalResumeRunner, "_apply", apply)
""")

TAMPER_CHECKS_SKIPPED = _autouse("""
from harness.engine._approval_resume import ApprovalResumeRunner
monkeypatch.setattr(ApprovalResumeRunner, "_verify", staticmethod(lambda *args: None))
try:  # where approvals and checkpoints are signed, the signature check goes too
    from harness.approval._signing import ApprovalSigner
except ImportError:
    ApprovalSigner = None
if ApprovalSigner is not None:
    monkeypatch.setattr(ApprovalSigner, "verify", lambda self, *args, **kwargs: None)
""")

CHECKPOINT_SIGNATURE_UNCHECKED = _autouse("""
import harness.engine._approval_resume as resume
class AnyDigest:
    @staticmethod
    def compare_digest(a, b):
        return True  # the resumed checkpoint is never matched to the approval's signature
monkeypatch.setattr(resume, "hmac", AnyDigest)
""")

CONCURRENT_RESUMES_BOTH_RUN = _autouse("""
import contextlib
from harness.approval._ledger import DecisionLedger
from harness.approval._store import ApprovalStore
# The claim is no longer atomic: no lock around read-check-save, no ledger refusal.
monkeypatch.setattr(ApprovalStore, "locked", lambda self, record: contextlib.nullcontext())
monkeypatch.setattr(DecisionLedger, "claim", lambda self, approval_id, decision: None)
""")

DENYLIST_IGNORED = _autouse("""
from harness.tools._policy import ToolPolicyMiddleware
monkeypatch.setattr(ToolPolicyMiddleware, "__call__", lambda self, ctx, nxt: nxt(ctx))
""")

DENIAL_RECORDED_AS_COMPLETED = _autouse("""
from harness.tools._execution import ToolExecutionResult
def denied(cls, observation, error_type="tool_denied"):
    return cls.error(observation, error_type)  # status completed: the trace says it ran
monkeypatch.setattr(ToolExecutionResult, "denied", classmethod(denied))
""")

DENIAL_REASON_HIDDEN = _autouse("""
from harness.tools._execution import ToolExecutionResult
from harness.tools._policy import ToolPolicyMiddleware
real = ToolPolicyMiddleware.__call__
def call(self, ctx, nxt):
    result = real(self, ctx, nxt)
    if result.denied_flag:
        return ToolExecutionResult.denied("Error: the tool call failed.", result.error_type)
    return result
monkeypatch.setattr(ToolPolicyMiddleware, "__call__", call)
""")


EDIT_SKIPS_THE_EXACT_STAGE = _autouse("""
import harness.tools.builtin._edit_matching as matching
real = matching._find
def find(doc, query, stage, expected, threshold):
    if stage is matching.Stage.EXACT:
        return None  # the strict stage never applies: a looser one matches instead
    return real(doc, query, stage, expected, threshold)
monkeypatch.setattr(matching, "_find", find)
""")

APPROVAL_NOT_CONSUMED = _autouse("""
from harness.engine._approval_resume import ApprovalResumeRunner
real = ApprovalResumeRunner._claim
def claim(self, *args, **kwargs):
    self.ledger = None  # where a decision ledger exists, it forgets too
    claimed = real(self, *args, **kwargs)
    self.approvals.save(claimed[0])  # the record as it was: still pending
    return claimed
monkeypatch.setattr(ApprovalResumeRunner, "_claim", claim)
""")


CHILD_BUDGET_IGNORED = _autouse("""
from harness.subagent._runner import SubagentRunner
real = SubagentRunner.run_explorer
def run_explorer(self, parent, task, max_steps, **kwargs):
    return real(self, parent, task, 12, **kwargs)  # whatever the parent asked for
monkeypatch.setattr(SubagentRunner, "run_explorer", run_explorer)
""")


def _budget(change: str) -> str:
    return _autouse(f"""
from harness.engine._loop import MainLoop
real = MainLoop.new_state
def new_state(self, prompt, *, session, mode, max_steps):
    return real(self, prompt, session=session, mode=mode, max_steps={change})
monkeypatch.setattr(MainLoop, "new_state", new_state)
""")


STOP_REASON_MISLABELLED = _autouse("""
from harness.engine._loop import MainLoop
from harness.engine._run_types import StopReason
real = MainLoop._finish
def finish(self, state, reason, text, **kwargs):
    if reason is StopReason.MAX_STEPS:
        reason = StopReason.FINAL
    return real(self, state, reason, text, **kwargs)
monkeypatch.setattr(MainLoop, "_finish", finish)
""")

SUBAGENT = ("evals/test_subagent_flow.py",)
EDIT = ("evals/test_edit_flow.py",)
APPROVAL = ("evals/test_approval_flow.py",)
POLICY = ("evals/test_policy_flow.py",)
CONCURRENT = ("evals/test_concurrent_reads.py",)
MAX_STEPS = ("evals/test_max_steps.py",)
BOTH = ("approval[approve]", "approval[reject]")


def _table(*rows: tuple[str, tuple[str, ...], tuple[str, ...], str, str]) -> tuple[Breakage, ...]:
    flagships = {
        "child-gets-write",
        "edit-writes-nothing",
        "approval-off",
        "checkpoint-signature-unchecked",
        "concurrent-resumes-both-run",
        "reject-reason-dropped",
        "denylist-ignored",
        "concurrent-swapped-contents",
        "max-steps-ignored",
    }
    return tuple(Breakage(*row, flagship=row[0] in flagships) for row in rows)


BREAKAGES = _table(
    # subagent
    (
        "child-gets-write",
        SUBAGENT,
        ("subagent",),
        "the child's llm calls were offered",
        CHILD_GETS_WRITE,
    ),
    (
        "parent-sees-read",
        SUBAGENT,
        ("subagent",),
        "the parent's llm calls were offered",
        PARENT_SEES_READ,
    ),
    (
        "subagent-reversed-observations",
        SUBAGENT,
        ("subagent",),
        "the final answer lacks",
        REVERSED_OBSERVATIONS,
    ),
    (
        "report-cap-lifted",
        SUBAGENT,
        ("subagent",),
        "the report the parent got is",
        REPORT_CAP_LIFTED,
    ),
    (
        "child-shares-parent-session",
        SUBAGENT,
        ("subagent",),
        "the child session key is",
        CHILD_SHARES_PARENT_SESSION,
    ),
    (
        "explore-returns-raw-files",
        SUBAGENT,
        ("subagent",),
        "the child session key is None",
        EXPLORE_RETURNS_THE_RAW_FILES,
    ),
    (
        "subagent-leaks-text",
        SUBAGENT,
        ("subagent",),
        "the metadata-mode trace holds payload text",
        LEAKS_TEXT_IN_METADATA_MODE,
    ),
    (
        "child-budget-ignored",
        SUBAGENT,
        ("subagent",),
        "the child ran with max_steps=12",
        CHILD_BUDGET_IGNORED,
    ),
    # edit
    (
        "edit-writes-nothing",
        EDIT,
        ("edit",),
        "only greet()'s return line changed",
        EDIT_WRITES_NOTHING,
    ),
    (
        "edit-overwrites-file",
        EDIT,
        ("edit",),
        "only greet()'s return line changed",
        EDIT_OVERWRITES_THE_FILE,
    ),
    (
        "edit-reversed-observations",
        EDIT,
        ("edit",),
        "only greet()'s return line changed",
        REVERSED_OBSERVATIONS,
    ),
    (
        "edit-swapped-contents",
        EDIT,
        ("edit",),
        "only greet()'s return line changed",
        SWAPPED_CONTENTS,
    ),
    (
        "edit-leaks-text",
        EDIT,
        ("edit",),
        "the metadata-mode trace holds payload text",
        LEAKS_TEXT_IN_METADATA_MODE,
    ),
    (
        "edit-skips-exact-stage",
        EDIT,
        ("edit",),
        "yet the edit matched at stage",
        EDIT_SKIPS_THE_EXACT_STAGE,
    ),
    # approval
    (
        "approval-not-consumed",
        APPROVAL,
        BOTH,
        # The consumed check, or the rival resume waiting for the claim, which then runs.
        "a decided approval ran again",
        APPROVAL_NOT_CONSUMED,
    ),
    ("approval-off", APPROVAL, BOTH, "the write was not paused for approval", APPROVAL_OFF),
    (
        "concurrent-resumes-both-run",
        APPROVAL,
        BOTH,
        "two concurrent resumes of one approval both ran",
        CONCURRENT_RESUMES_BOTH_RUN,
    ),
    (
        "checkpoint-signature-unchecked",
        APPROVAL,
        BOTH,
        "a checkpoint re-signed after the approval was resumed",
        CHECKPOINT_SIGNATURE_UNCHECKED,
    ),
    ("pause-span-dropped", APPROVAL, BOTH, "approval.pause", PAUSE_SPAN_DROPPED),
    ("tamper-checks-skipped", APPROVAL, BOTH, "DID NOT RAISE", TAMPER_CHECKS_SKIPPED),
    (
        "reject-runs-the-call",
        APPROVAL,
        ("approval[reject]",),
        "approval.resume records 'approve'",
        REJECT_RUNS_THE_CALL,
    ),
    (
        "reject-reason-dropped",
        APPROVAL,
        ("approval[reject]",),
        "does not report the human's reason",
        REJECT_REASON_DROPPED,
    ),
    ("approval-usage-dropped", APPROVAL, BOTH, "report no usage", USAGE_DROPPED),
    # policy
    (
        "denylist-ignored",
        POLICY,
        ("policy",),
        "the denied write ran: copy.txt exists",
        DENYLIST_IGNORED,
    ),
    (
        "denial-recorded-as-completed",
        POLICY,
        ("policy",),
        "the write was not denied by policy",
        DENIAL_RECORDED_AS_COMPLETED,
    ),
    (
        "denial-reason-hidden",
        POLICY,
        ("policy",),
        "the model was not told the write was denied",
        DENIAL_REASON_HIDDEN,
    ),
    ("policy-usage-dropped", POLICY, ("policy",), "report no usage", USAGE_DROPPED),
    # concurrent reads
    (
        "concurrent-reversed-observations",
        CONCURRENT,
        ("concurrent",),
        "observations came back in order",
        REVERSED_OBSERVATIONS,
    ),
    (
        "concurrent-swapped-contents",
        CONCURRENT,
        ("concurrent",),
        "does not hold its own file's sentinel",
        SWAPPED_CONTENTS,
    ),
    ("one-call-per-turn", CONCURRENT, ("concurrent",), "the answer lacks", ONE_CALL_PER_TURN),
    (
        "reads-run-one-after-another",
        CONCURRENT,
        ("concurrent",),
        "did not run the two reads as one parallel group",
        READS_RUN_ONE_AFTER_ANOTHER,
    ),
    (
        "concurrent-leaks-text",
        CONCURRENT,
        ("concurrent",),
        "the metadata-mode trace holds payload text",
        LEAKS_TEXT_IN_METADATA_MODE,
    ),
    # max steps
    (
        "max-steps-ignored",
        MAX_STEPS,
        ("max_steps",),
        "the run stopped with final after 5 steps",
        _budget("max_steps + 10"),
    ),
    (
        "max-steps-off-by-one",
        MAX_STEPS,
        ("max_steps",),
        "4 steps and 4 tool calls",
        _budget("max_steps + 1"),
    ),
    (
        "max-steps-stops-early",
        MAX_STEPS,
        ("max_steps",),
        "2 steps and 2 tool calls",
        _budget("max_steps - 1"),
    ),
    (
        "stop-reason-mislabelled",
        MAX_STEPS,
        ("max_steps",),
        "the run stopped with final after 3 steps",
        STOP_REASON_MISLABELLED,
    ),
)
