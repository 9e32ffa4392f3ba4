"""The learned part of the priority: weights for what the changed lines do, fitted on real bugs.

The hand-set priority (``rules.priority``: risk, role, signals, confidence, size, reach) stays
the base of the order; this model adds one part, ``learned``, worth ``scale`` points per unit of
its linear score over ``rules.triage_features`` plus three of the rule parts themselves (so the
fit can also temper what the rules over-reward: security-pattern signals on ordinary bugs). The
weights are data: ``reviewtui/rules/triage_weights.toml`` ships weights fitted on the bug
histories of public projects (``benchmarks/bench_triage.py``); a repository's own fit
(``reviewtui eval --fit``) is written to ``.reviewtui/triage_weights.toml``, which wins while it
exists -- deleting it reverts to the shipped weights.
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reviewtui.config import toml_text
from reviewtui.errors import ConfigError, not_utf8
from reviewtui.history.unit_features import FEATURES as HISTORY_FEATURES
from reviewtui.rules.priority import MAX_REACH_POINTS, MAX_SIGNALS, SIGNAL_POINTS
from reviewtui.rules.suggestion import RuleSuggestion
from reviewtui.rules.triage_features import FEATURES
from reviewtui.rules.weights_files import repository_weights_path, shipped_weights_path

RULE_FEATURES: tuple[str, ...] = ("rule_risk", "rule_signals", "rule_reach", "rule_base")
ALL_FEATURES: tuple[str, ...] = FEATURES + HISTORY_FEATURES + RULE_FEATURES
_RULE_SET = frozenset(RULE_FEATURES)


class TriageWeights(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    version: int = 1
    scale: float = Field(default=10.0, gt=0, description="priority points per unit of score")
    cap: float = Field(default=12.0, gt=0, description=(
        "the most points the learned part adds to a unit, and the most its tempering of the "
        "rule parts (risk, signals, reach, base) moves one: less than a risk class is worth "
        "(15), so it never lifts a low unit above a critical one, nor sinks a unit for its "
        "risk by more than that; what the changed lines are (a test, docs, a sweep of "
        "renames) may sink a unit further"))
    weights: dict[str, float] = Field(default_factory=dict)
    # the token model: ``+tok`` / ``-tok`` (a token of an added / removed code line) -> weight
    tokens: dict[str, float] = Field(default_factory=dict)
    fitted_on: str = ""  # what the weights were fitted on, for the person reading the file
    cases: int = 0  # cases they were fitted on

    def points(self, features: Mapping[str, float], tokens: Iterable[str] = ()) -> float:
        weights = self.weights
        rules = lines = 0.0
        for name, value in features.items():
            if value:
                if name in _RULE_SET:
                    rules += weights.get(name, 0.0) * value
                else:
                    lines += weights.get(name, 0.0) * value
        if self.tokens:
            lines += sum(self.tokens.get(token, 0.0) for token in tokens)
        return round(self.bound(self.scale * rules, self.scale * lines), 1)

    def bound(self, rules: float, lines: float) -> float:
        """The learned points of a unit whose rule parts give ``rules`` points and whose
        lines (their features and tokens) give ``lines``: the rules' part within +-cap, the
        total at most +cap. A symmetric clip of the total (as before) kept a test, docs or a
        sweep of renames from sinking below the code that held a bug: on other projects'
        bugs in changes of 10+ units it cost 3 in 100 top-3 hits (leave one project out) and
        4 in 100 (five projects added later)."""
        return min(self.cap, max(-self.cap, min(self.cap, rules)) + lines)

    def contributions(self, features: Mapping[str, float], tokens: Iterable[str] = ()
                      ) -> list[tuple[str, float]]:
        """Each feature's points, and the token model's (``tokens``: the summed points of
        its tokens, named ``tokens +x +y``), largest first (what ``rules explain`` shows)."""
        parts = [(name, round(self.scale * self.weights.get(name, 0.0) * value, 1))
                 for name, value in features.items() if value]
        weighed = sorted(((t, self.scale * self.tokens[t]) for t in tokens if t in self.tokens),
                         key=lambda p: -abs(p[1]))
        if weighed:
            names = " ".join(f"{t}({p:+.1f})" for t, p in weighed[:6])
            parts.append((f"tokens {names}", round(sum(p for _, p in weighed), 1)))
        # as ``bound`` counts them, so the parts add up to the learned points: the rules'
        # share within +-cap, then shares of a total above +cap
        rules = sum(p for name, p in parts if name in _RULE_SET)
        if abs(rules) > self.cap:
            parts = [(name, p * self.cap / abs(rules) if name in _RULE_SET else p)
                     for name, p in parts]
        total = sum(p for _, p in parts)
        if total > self.cap:
            parts = [(name, p * self.cap / total) for name, p in parts]
        return sorted(((name, round(p, 1)) for name, p in parts if round(p, 1)),
                      key=lambda p: -abs(p[1]))


def rule_features(suggestion: RuleSuggestion, reach: float | None = None) -> dict[str, float]:
    """The rule parts as features; ``reach``: its points when not in the parts yet."""
    parts = dict(suggestion.priority_parts)
    if reach is not None:
        parts["reach"] = reach
    # as the weights were fitted: the base without the parts counted for the whole change
    # after the reach (the cut of a shared risk class, the learned part)
    base = sum(p for name, p in parts.items() if name not in ("shared_risk", "learned"))
    return {
        "rule_risk": parts.get("risk", 0.0) / 40.0,
        "rule_signals": parts.get("signals", 0.0) / (SIGNAL_POINTS * MAX_SIGNALS),
        "rule_reach": parts.get("reach", 0.0) / MAX_REACH_POINTS,
        "rule_base": base / 100,
    }


def _read(path: Path) -> TriageWeights:
    try:
        data = toml_text(path.read_bytes())
        weights = TriageWeights.model_validate(data)
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (TOML is): {not_utf8(exc)}") from None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the triage weights: {exc}") from None
    except ValidationError as exc:
        error = exc.errors()[0]
        key = ".".join(str(p) for p in error["loc"])
        raise ConfigError(f"{path}: {key}: {error['msg']}") from None
    bad = next((t for t in weights.tokens if t[:1] not in "+-" or len(t) < 2), None)
    if bad is not None:
        raise ConfigError(f"{path}: tokens.{bad}: a token starts with + (added) or - (removed)")
    unknown = sorted(set(weights.weights) - set(ALL_FEATURES))
    if unknown:
        raise ConfigError(f"{path}: weights.{unknown[0]}: not a feature "
                          f"(known: {', '.join(ALL_FEATURES)})")
    return weights


@functools.lru_cache(maxsize=16)
def _cached(path: Path, stamp: tuple[int, int]) -> TriageWeights:
    return _read(path)


def load_weights(root: Path | None) -> tuple[TriageWeights, Path]:
    """The repository's accepted weights if it has them, else the shipped ones."""
    for path in ([repository_weights_path(root)] if root is not None else []) + [
            shipped_weights_path()]:
        try:
            info = path.stat()
        except OSError:
            continue
        return _cached(path, (info.st_size, info.st_mtime_ns)), path
    return TriageWeights(), shipped_weights_path()


def write_weights(path: Path, weights: TriageWeights, comment: Sequence[str] = ()) -> None:
    """The weights as a reviewable TOML file, one feature a line, in the features' order."""
    import tomlkit

    document = tomlkit.document()
    for line in comment:
        document.add(tomlkit.comment(line))
    document.add("version", weights.version)
    document.add("scale", weights.scale)
    document.add("cap", weights.cap)
    document.add("fitted_on", weights.fitted_on)
    document.add("cases", weights.cases)
    table = tomlkit.table()
    for name in ALL_FEATURES:
        if name in weights.weights:
            table.add(name, weights.weights[name])
    document.add("weights", table)
    if weights.tokens:
        tokens = tomlkit.table()
        for token, weight in sorted(weights.tokens.items(), key=lambda t: -abs(t[1])):
            tokens.add(token, weight)
        document.add("tokens", tokens)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(tomlkit.dumps(document), encoding="utf-8")
