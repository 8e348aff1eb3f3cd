"""The mutation score: kills over scored mutants, a Wilson interval, inert mutants named."""

from __future__ import annotations

from harness.evals import EvalReport, MutantOutcome, MutantResult, render_mutants
from harness.evals.mutant_results import mutation_score, summarize_mutants


def _result(
    nodeid: str, mutant: str, outcome: MutantOutcome, *, served: int = 1, available: int = 2
) -> MutantResult:
    return MutantResult(
        eval_nodeid=nodeid,
        scenario=nodeid.rpartition("::")[2],
        provider="openai",
        model="m",
        source="simulator",
        mutant=mutant,
        operator=mutant.partition(".")[0],
        description=f"{mutant} described",
        outcome=outcome,
        served=served,
        available=available,
    )


REPORT = EvalReport(
    mutants=(
        _result("t::edit", "original", MutantOutcome.PASS),
        _result("t::edit", "drop_call.1", MutantOutcome.KILLED),
        _result("t::edit", "refuse.1", MutantOutcome.KILLED),
        _result("t::edit", "garble.1", MutantOutcome.SURVIVED),
        # The run asked for none of its responses: nothing it could see changed.
        _result("t::edit", "swap.1", MutantOutcome.SURVIVED, served=0),
        _result("t::edit", "alter.1", MutantOutcome.ERROR),
        # A report from before `available` was recorded: never called inert.
        _result("t::old", "original", MutantOutcome.PASS, served=0, available=0),
        _result("t::old", "refuse.1", MutantOutcome.SURVIVED, served=0, available=0),
        # Its control failed: its kills prove nothing and are not scored.
        _result("t::flaky", "original", MutantOutcome.FAIL),
        _result("t::flaky", "refuse.1", MutantOutcome.KILLED),
    )
)


def test_inert_mutants_and_unproven_evals_are_left_out_of_the_score() -> None:
    score = mutation_score(summarize_mutants(REPORT.mutants))
    assert (score.killed, score.scored, score.errors) == (2, 4, 1)
    assert [r.mutant for r in score.inert] == ["swap.1"]
    assert score.render() == (
        "mutation score: 2/4 50% [15–85] (Wilson 95%); excluded: 1 inert (the run asked "
        "for no response), 1 error(s), and evals whose control failed or that were not mutated"
    )


def test_the_table_names_each_inert_mutant_and_prints_the_score() -> None:
    lines = render_mutants(REPORT).splitlines()
    assert (
        "  inert (not scored): swap.1 (swap.1 described): the run asked for none of its 2 "
        "response(s)"
    ) in lines
    assert "  survived: garble.1 (garble.1 described)" in lines
    assert "  survived: swap.1 (swap.1 described)" not in lines
    assert "  survived: refuse.1 (refuse.1 described)" in lines  # t::old
    assert any(line.startswith("mutation score: 2/4 50% [15–85]") for line in lines)


def test_no_scored_mutant_is_the_whole_range() -> None:
    only_inert = EvalReport(
        mutants=(
            _result("t::a", "original", MutantOutcome.PASS),
            _result("t::a", "swap.1", MutantOutcome.SURVIVED, served=0),
        )
    )
    score = mutation_score(summarize_mutants(only_inert.mutants))
    assert score.render().startswith("mutation score: 0/0 [0–100] (Wilson 95%); excluded: 1 inert")
