"""The learned priority: its weights as a file, its fit on time-ordered cases, and orders a
reviewer notices (a removed bounds check before a reworded log message; a definition fixed
again and again before an otherwise identical one)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewtui.errors import ConfigError, EvalError
from reviewtui.eval.cases import EvalCase
from reviewtui.eval.fit import fit_own, fit_weights, rescored, time_split
from reviewtui.eval.rank import CaseResult, Ranking, UnitSample
from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from reviewtui.rules.triage_features import feature_evidence
from reviewtui.rules.triage_model import (
    ALL_FEATURES,
    TriageWeights,
    load_weights,
    write_weights,
)
from reviewtui.rules.unit_tokens import unit_tokens
from reviewtui.rules.weights_files import repository_weights_path, shipped_weights_path
from reviewtui.units.order import sort_units
from tests.conftest import GitRepoBuilder


def test_weights_round_trip_through_the_file(tmp_path: Path) -> None:
    weights = TriageWeights(scale=12.5, weights={name: round(0.01 * i - 0.1, 4)
                                                 for i, name in enumerate(ALL_FEATURES)},
                            fitted_on='a "quoted" project', cases=17)
    path = tmp_path / ".reviewtui" / "triage_weights.toml"
    write_weights(path, weights, ["a comment"])
    assert path.read_text().startswith("# a comment\n")
    loaded, where = load_weights(tmp_path)
    assert where == repository_weights_path(tmp_path) == path
    assert loaded == weights
    path.unlink()  # deleting the repository's file reverts to the shipped weights
    assert load_weights(tmp_path)[1] == shipped_weights_path()


def test_a_broken_weights_file_names_the_file_and_the_key(tmp_path: Path) -> None:
    path = repository_weights_path(tmp_path)
    path.parent.mkdir()
    path.write_text("[weights]\nnot_a_feature = 1.0\n")
    with pytest.raises(ConfigError, match=r"triage_weights.toml: weights.not_a_feature"):
        load_weights(tmp_path)
    path.write_text("scale = -1\n")
    with pytest.raises(ConfigError, match=r"triage_weights.toml: scale"):
        load_weights(tmp_path)


def _case(time: int, holder_feature: str, units: int = 5) -> CaseResult:
    """A ranked case whose bug sits in the one unit with ``holder_feature`` set."""
    samples = []
    for i in range(units):
        values = [0.0] * len(ALL_FEATURES)
        holds = i == units - 1
        if holds:
            values[ALL_FEATURES.index(holder_feature)] = 1.0
        samples.append(UnitSample(base=10.0, lines=5, features=values, holds=holds))
    return CaseResult(case=EvalCase(bug=f"{time:040x}", subject="s", time=time, fixes=[],
                                    targets=[]),
                      status="ok", units=units, samples=samples,
                      rankings={"reviewtui": Ranking(rank=units, effort=0.8),
                                "file": Ranking(rank=units, effort=0.8),
                                "largest": Ranking(rank=1, effort=0.0)})


def test_fitting_learns_what_held_the_bugs_and_moves_the_rank() -> None:
    cases = [_case(t, "boundary") for t in range(20)]
    weights = fit_weights(cases)
    assert weights.weights["boundary"] > 0.5 and weights.cases == 20
    assert rescored(cases[0], weights).rankings["reviewtui"].rank == 1
    assert rescored(cases[0], TriageWeights()).rankings["reviewtui"].rank == 5


def test_fix_history_and_reach_can_lift_a_unit_but_a_fit_never_turns_them_against_it() -> None:
    """Cases where the bug always sat in the unit *without* a fix history or reach: a free fit
    would weigh both negative; the product's promise (a definition fixed again and again, code
    others use, is read first) keeps them at zero -- and a fit where they helped keeps them."""
    against = []
    for t in range(20):
        case = _case(t, "boundary")
        samples = [s.model_copy(update={"features": [
            1.0 if (not s.holds and name in ("definition_fixed", "rule_reach")) else v
            for name, v in zip(ALL_FEATURES, s.features, strict=True)]}) for s in case.samples]
        against.append(case.model_copy(update={"samples": samples}))
    weights = fit_weights(against)
    assert weights.weights["definition_fixed"] == 0 and weights.weights["rule_reach"] == 0
    assert weights.weights["boundary"] > 0.5
    helped = fit_weights([_case(t, "definition_fixed") for t in range(20)])
    assert helped.weights["definition_fixed"] > 0.5


def test_time_ordered_fitting_never_trains_on_the_evaluation_window() -> None:
    cases = [_case(t, "boundary") for t in (50, 10, 40, 20, 30, 30, 60, 70, 80, 90,
                                           15, 25, 35, 45)]
    train, test = time_split(cases, share=0.3)
    assert max(c.case.time for c in train) < min(c.case.time for c in test)
    assert len(train) + len(test) == len(cases)
    with pytest.raises(EvalError, match="as new as the evaluation window"):
        fit_weights(cases, before=60)
    fit_weights(train, before=test[0].case.time)  # the older cases alone are fine


def test_an_own_fit_moves_as_far_as_the_repositorys_newer_bugs_support_and_no_further() -> None:
    in_use = TriageWeights(weights={"boundary": 1.0})
    # the repository's bugs sit where the weights in use already look: a fit of its older
    # cases would only add noise, so the proposal is the weights in use
    alike = [_case(t, "boundary") for t in range(30)]
    for i in range(0, 20, 4):  # some older cases say otherwise
        alike[i] = _case(i, "arithmetic")
    kept = fit_own(alike, in_use, tokens=0, fitted_on="repo")
    assert kept.l2 is None and kept.validated_on > 0
    assert kept.weights.weights == in_use.weights and "kept the weights in use" in (
        kept.weights.fitted_on)
    # its bugs sit somewhere the weights in use do not look: the fit moves, and ranks them
    unlike = [_case(t, "arithmetic") for t in range(30)]
    moved = fit_own(unlike, in_use, tokens=0)
    assert moved.l2 is not None and moved.weights.weights["arithmetic"] > 0.5
    assert rescored(unlike[-1], moved.weights).rankings["reviewtui"].rank == 1
    assert rescored(unlike[-1], in_use).rankings["reviewtui"].rank == 5


def _priority_order(repo: GitRepoBuilder) -> list[str]:
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.COMMIT, ref="HEAD"),
                         use_cache=False).with_reach(keep=False)
    index = sort_units(loaded.review_index(), "priority")
    return [u.location for u in index.units]


JOBS = '''"""Jobs."""
import logging

log = logging.getLogger(__name__)


def pick(items, i):
    """The i-th item."""
    if i >= len(items):
        raise IndexError(i)
    return items[i]
''' + "\n" * 30 + '''

def start(job):
    """Start a job."""
    log.info("starting job %s", job)
    return job.run()
'''


def test_the_learned_part_lifts_by_at_most_the_cap_and_tempers_risk_by_at_most_it() -> None:
    weights = TriageWeights(cap=12.0, weights={
        "added_code_log": 3.0, "test_or_doc": -3.0, "rule_risk": -4.0, "one_function": 0.5})
    # a unit of much new code: lifted by 12 points, not 30
    assert weights.points({"added_code_log": 1.0}) == 12.0
    # a test file sinks below what the cap lets code climb: -30, not -12
    assert weights.points({"test_or_doc": 1.0}) == -30.0
    # a critical unit is tempered for its risk by 12 points at most, whatever the weight says;
    # what its lines do still counts on top
    assert weights.points({"rule_risk": 1.0}) == -12.0
    assert weights.points({"rule_risk": 1.0, "one_function": 1.0}) == -7.0


def test_the_shown_parts_add_up_to_the_learned_points() -> None:
    weights = TriageWeights(cap=12.0, weights={
        "added_code_log": 3.0, "rule_risk": -4.0, "rule_base": -2.0, "one_function": 0.5,
        "size_log": -1.0})
    for features in ({"rule_risk": 0.75, "rule_base": 0.5, "one_function": 1.0},
                     {"added_code_log": 1.0, "one_function": 1.0},
                     {"added_code_log": 0.4, "rule_risk": 1.0, "size_log": 0.3}):
        parts = weights.contributions(features)
        assert abs(sum(p for _, p in parts) - weights.points(features)) <= 0.15, parts


def test_a_removed_bounds_check_outranks_a_reworded_log_message(
        repo: GitRepoBuilder) -> None:
    repo.write("jobs.py", JOBS)
    repo.commit("jobs")
    repo.write("jobs.py", JOBS.replace('    if i >= len(items):\n        raise IndexError(i)\n',
                                       "").replace('"starting job %s"', '"job %s starts"'))
    repo.commit("simplify pick, reword the start message")
    order = _priority_order(repo)
    assert len(order) == 2
    assert order[0].startswith("jobs.py:L9-10 (removed)"), order  # pick()'s bounds check


def _pair(name: str, offset: int) -> str:
    return (f"def {name}(items, limit):\n"
            f"    total = {offset}\n"
            "    for item in items:\n"
            "        total += item.size\n"
            "    if total > limit:\n"
            "        return limit\n"
            "    return total\n")


def test_a_definition_fixed_three_times_outranks_an_identical_one_in_the_same_file(
        repo: GitRepoBuilder) -> None:
    spacer = "\n" * 20
    body_f, body_g = _pair("measure", 0), _pair("weigh", 0)
    repo.write("sizes.py", body_f + spacer + body_g)
    repo.commit("sizes")
    fixed = body_f
    for n, (old, new) in enumerate([("total = 0", "total = 0  # start"),
                                    ("total += item.size", "total += item.size or 0"),
                                    ("return limit", "return limit  # capped")]):
        fixed = fixed.replace(old, new)
        repo.write("sizes.py", fixed + spacer + body_g)
        repo.commit(f"fix measure: wrong total ({n})")
    # the same edit to both definitions
    change_f = fixed.replace("    if total > limit:", "    if total >= limit:")
    change_g = body_g.replace("    if total > limit:", "    if total >= limit:")
    repo.write("sizes.py", change_f + spacer + change_g)
    repo.commit("cap at the limit itself")
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.COMMIT, ref="HEAD"),
                         use_cache=False).with_reach(keep=False)
    by_function = {u.functions[0]: u.unit_id for u in loaded.units}
    assert set(by_function) == {"measure", "weigh"}
    history = loaded.learned_features
    assert history[by_function["measure"]]["fixed_before"] > 0
    assert history[by_function["weigh"]]["fixed_before"] == 0
    order = [u.unit_id for u in sort_units(loaded.review_index(), "priority").units]
    assert order.index(by_function["measure"]) < order.index(by_function["weigh"])
    reasons = loaded.priority_reasons(by_function["measure"])
    fixed_line = next(r for r in reasons if r.startswith("definition_fixed "))
    # the evidence: the newest fix commits of the definition, with their subjects
    assert fixed_line.count('"fix measure: wrong total (') == 2 and "and 1 more" in fixed_line


def _token_case(time: int) -> CaseResult:
    """Five units; the bug sits in the one whose added lines have ``unsafe_cast``."""
    samples = [UnitSample(base=10.0, lines=5, features=[0.0] * len(ALL_FEATURES),
                          holds=i == 4, tokens=["+return", "+x"] + (["+unsafe_cast"] if i == 4
                                                                    else ["+safe"]))
               for i in range(5)]
    return CaseResult(case=EvalCase(bug=f"{time:040x}", subject="s", time=time, fixes=[],
                                    targets=[]),
                      status="ok", units=5, samples=samples,
                      rankings={"reviewtui": Ranking(rank=5, effort=0.8)})


def test_the_token_model_learns_which_tokens_held_bugs_and_says_so(tmp_path: Path) -> None:
    cases = [_token_case(t) for t in range(12)]
    weights = fit_weights(cases, tokens=10)
    assert weights.tokens["+unsafe_cast"] > 0 > weights.tokens["+safe"]
    assert "+return" not in weights.tokens  # in every unit: says nothing
    assert rescored(cases[0], weights).rankings["reviewtui"].rank == 1
    [(name, points)] = weights.contributions({}, ["+unsafe_cast", "+x"])
    assert name.startswith("tokens +unsafe_cast(+") and points > 0
    write_weights(tmp_path / ".reviewtui" / "triage_weights.toml", weights)
    assert load_weights(tmp_path)[0].tokens == weights.tokens


def test_a_token_must_say_which_side_it_is_on(tmp_path: Path) -> None:
    path = repository_weights_path(tmp_path)
    path.parent.mkdir()
    path.write_text('[tokens]\nreturn = 1.0\n')
    with pytest.raises(ConfigError, match=r"tokens.return: a token starts with"):
        load_weights(tmp_path)


def test_a_docstring_that_reads_like_code_steers_nothing(repo: GitRepoBuilder) -> None:
    """The parse's docstrings and comments are not changed code: "if the size is None,
    return 0" in a docstring gives no control flow, no null handling and no return."""
    filler = "".join(f"LIMIT_{i} = {i}\n" for i in range(20))
    body = ('def size(item):\n    """The size of an item."""\n    return item.size\n\n\n'
            + filler + '\n\ndef weight(item):\n    return item.weight\n')
    repo.write("m.py", body)
    repo.commit("m")
    repo.write("m.py", body.replace('"""The size of an item."""',
                                    '"""The size of an item.\n\n    if the size is None, return 0 '
                                    'unless strict.\n    """')
               .replace("return item.weight", "if item.weight is None:\n        return 0\n"
                        "    return item.weight"))
    repo.commit("document size, default weight")
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.COMMIT, ref="HEAD"),
                         use_cache=False).with_reach(keep=False)
    by_function = {u.functions[0]: loaded.learned_features[u.unit_id] for u in loaded.units}
    docs, code = by_function["size"], by_function["weight"]
    for name in ("control_flow", "null_handling", "return_changed"):
        assert docs[name] == 0 and code[name] > 0, name


def test_a_message_that_reads_like_code_steers_nothing_by_the_parse(
        repo: GitRepoBuilder) -> None:
    """What a changed line does is read off the parse: "if x > 1: return None" inside a string
    is no condition, comparison, return or null -- patterns on the text would see all four --
    and the evidence names the line the parse marked."""
    filler = "".join(f"LIMIT_{i} = {i}\n" for i in range(20))
    body = ('def hint(x):\n    msg = "fine"\n    return msg\n\n\n' + filler
            + '\n\ndef check(x):\n    return x\n')
    repo.write("m.py", body)
    repo.commit("m")
    repo.write("m.py", body.replace('"fine"', '"if x > 1: return None"')
               .replace("    return x\n", "    if x > 1:\n        return None\n    return x\n"))
    repo.commit("hint, check")
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.COMMIT, ref="HEAD"),
                         use_cache=False).with_reach(keep=False)
    units = {u.functions[0]: u for u in loaded.units}
    message, code = (loaded.learned_features[units[n].unit_id] for n in ("hint", "check"))
    for name in ("control_flow", "condition_changed", "null_handling", "return_changed"):
        assert message[name] == 0, name
    for name in ("control_flow", "null_handling", "return_changed"):
        assert code[name] > 0, name
    assert units["check"].line_kinds is not None
    assert feature_evidence(units["check"], "control_flow") == "+L29 if x > 1:"
    assert feature_evidence(units["hint"], "control_flow") is None


def test_the_token_model_never_learns_from_removed_lines() -> None:
    """SZZ cannot blame a removal, so a removed line's token would learn "what was removed is
    safe": the fit's vocabulary is the added lines' tokens only."""
    cases = []
    for t in range(12):
        case = _token_case(t)
        samples = [s.model_copy(update={"tokens": [*s.tokens, "-guard" if not s.holds else
                                                    "-other"]}) for s in case.samples]
        cases.append(case.model_copy(update={"samples": samples}))
    weights = fit_weights(cases, tokens=10)
    assert weights.tokens["+unsafe_cast"] > 0
    assert not any(token.startswith("-") for token in weights.tokens)


def test_the_words_of_a_message_are_no_tokens(repo: GitRepoBuilder) -> None:
    repo.write("jobs.py", JOBS)
    repo.commit("jobs")
    repo.write("jobs.py", JOBS.replace('"starting job %s"', '"job %s starts"'))
    repo.commit("reword")
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.COMMIT, ref="HEAD"),
                         use_cache=False)
    [unit] = loaded.units
    tokens = set(unit_tokens(unit))
    assert {"+log", "+info", "+job", "-job"} <= tokens  # `job` the variable, not the word
    assert not tokens & {"+starts", "-starting", "+s", "+%", "-%"}, tokens


def test_a_shared_risk_class_cuts_risk_points_but_not_what_the_weights_read(
        repo: GitRepoBuilder) -> None:
    from reviewtui.rules.priority import shared_risk_cut, with_reach
    from reviewtui.rules.triage_model import rule_features

    body = "def check(user, password):\n    return user.token {} password\n"
    repo.write("auth_login.py", body.format("=="))
    repo.write("util.py", "def tidy(text):\n    return text.strip()\n")
    repo.commit("base")
    repo.write("auth_login.py", body.format("!="))
    repo.write("util.py", "def tidy(text):\n    return text\n")
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.ALL))
    by_file = {u.file_path: loaded.suggestions[u.unit_id] for u in loaded.units}
    high, medium = by_file["auth_login.py"], by_file["util.py"]
    assert high.risk.value == "high" and medium.risk.value != "high"
    # none up to a tenth of the change, all of it from 60 %
    assert [round(shared_risk_cut(s), 6) for s in (0.0, 0.1, 0.35, 0.6, 1.0)] == [
        0.0, 0.0, 0.5, 1.0, 1.0]
    kept, cut = with_reach(high, 0, 1.0), with_reach(high, 0, 1.0, high_share=0.35)
    assert dict(cut.priority_parts)["shared_risk"] == -15.0
    assert cut.priority_score == kept.priority_score - 15
    # the learned part reads the rule parts as it was fitted on them, without the cut
    assert rule_features(cut) == rule_features(kept)
    assert cut.uncounted() == kept.uncounted() == high.uncounted()
    assert "shared_risk" not in dict(with_reach(medium, 0, 1.0, high_share=0.9).priority_parts)


def test_the_detail_pane_says_why_a_shared_risk_class_counts_less(repo: GitRepoBuilder) -> None:
    body = "def check_{n}(user, password):\n    return user.token {op} password\n"
    names = ("login", "session", "token", "password")
    for n in names:
        repo.write(f"auth_{n}.py", body.format(n=n, op="=="))
    repo.write("util.py", "def tidy(text):\n    return text.strip()\n")
    repo.commit("base")
    for n in names:
        repo.write(f"auth_{n}.py", body.format(n=n, op="!="))
    repo.write("util.py", "def tidy(text):\n    return text\n")
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.ALL)).with_reach()
    high = next(u for u in loaded.units if u.file_path == "auth_login.py")
    why = loaded.priority_reasons(high.unit_id)  # what the workbench's detail pane lists
    assert " + shared_risk -30" in why[0]
    assert why[1].startswith("shared_risk: 60% or more of this change's units are high")
