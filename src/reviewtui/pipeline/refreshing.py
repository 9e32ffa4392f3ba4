"""A loaded change collected or scored again: ``LoadedChange.refresh`` and ``rescored``.

A refresh diffs again only the files whose stamps moved (``git.refresh.recollect``) and keeps
the rest, unless something the whole change depends on moved (``HEAD``, the index for
``--working``, the settings or the rule packs): then it is loaded whole. Rescoring runs the rule
packs as they are now over the same units, or builds the units again when the tagging
vocabulary may have changed. Either way a change that was counted in priority order's terms
comes back in them, and a stated purpose is gathered again.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from reviewtui.git.contents import ContentReader
from reviewtui.git.selector import SelectorMode
from reviewtui.pipeline.change import LoadedChange, config_stamp

if TYPE_CHECKING:
    from reviewtui.git.refresh import Recollected
    from reviewtui.rules import LoadedPack, RuleSuggestion
    from reviewtui.units import ReviewUnit


def refreshed(loaded: LoadedChange) -> LoadedChange:
    """The same selector collected again: edits in the working tree or the index show up.

    Unchanged files come from the per-file cache, so one edited file costs about what
    collecting it alone costs. A change in priority order's terms (``with_reach``) comes
    back in them, every unit counted again: an edited unit's reach and learned part are
    its own, and the others' shares of the change moved with it. ``UsageError`` for a
    commit, a range or a patch."""
    from reviewtui.pipeline.loading import load_change

    if not loaded.refreshable or loaded.selector is None:
        from reviewtui.errors import UsageError

        raise UsageError("a commit, a range or a patch does not change: nothing to refresh")
    again = _recollect(loaded)
    if again is None:
        whole = load_change(loaded.root, loaded.selector, use_cache=loaded.use_cache)
        return _counted_like(loaded, _intent_for(loaded, whole))
    if not again.changed:
        return replace(loaded, stamps=again.stamps)
    from reviewtui.analysis import analyse_change, open_unit_cache
    from reviewtui.units.languages import repository_languages
    from reviewtui.units.vocabulary import vocabulary_for

    assert loaded.repo is not None
    kept: dict[str, list[tuple[ReviewUnit, RuleSuggestion]]] = {}
    for unit in loaded.units:
        if unit.file_path not in again.changed and unit.unit_id in loaded.suggestions:
            kept.setdefault(unit.file_path, []).append(
                (unit, loaded.suggestions[unit.unit_id]))
    languages = repository_languages(loaded.repo, again.change_set)
    if languages != repository_languages(loaded.repo, loaded.change_set):
        # .h files became C++ (or C) with the change's new paths: their units differ
        whole = load_change(loaded.root, loaded.selector, use_cache=loaded.use_cache)
        return _counted_like(loaded, _intent_for(loaded, whole))
    reader = ContentReader(loaded.repo, again.change_set, loaded.settings.git.max_file_bytes)
    cache = (open_unit_cache(loaded.repo.common_dir, loaded.settings, loaded.rule_pack.pack)
             if loaded.use_cache and loaded.settings.units.cache else None)
    analysis = analyse_change(
        again.change_set, reader, loaded.settings.units,
        vocabulary_for(loaded.rule_pack.pack.tagging, loaded.rule_pack.sources), loaded.rules,
        cache=cache, kept=kept, languages=languages)
    return _counted_like(loaded, replace(
        loaded, change_set=again.change_set, reader=reader, units=analysis.units,
        suggestions=analysis.suggestions, stamps=again.stamps))


def _intent_for(loaded: LoadedChange, fresh: LoadedChange) -> LoadedChange:
    """``fresh``, collected whole, with this change's stated purpose gathered again if it
    was: a commit, a checkout or a reset may have made it another change (other commits,
    another branch); the description stays, with where it came from."""
    if loaded.intent is None:
        return fresh
    from reviewtui.git.intent import gather_intent

    return replace(fresh, intent=gather_intent(
        fresh.repo, fresh.change_set, description=loaded.intent.description,
        description_source=loaded.intent.description_source))


def _counted_like(loaded: LoadedChange, fresh: LoadedChange) -> LoadedChange:
    """``fresh`` counted in priority order's terms if this change was."""
    if not any(s.reach_counted for s in loaded.suggestions.values()):
        return fresh
    base = {uid: s.uncounted() for uid, s in fresh.suggestions.items()}
    return replace(fresh, suggestions=base, learned_features={},
                   learned_evidence={}).with_reach()


def _recollect(loaded: LoadedChange) -> Recollected | None:
    """Only the files that changed diffed again, when nothing else moved (``HEAD``, the
    index for ``--working``, the settings, the rule packs); None: load it whole."""
    from reviewtui.git.refresh import recollect

    if (loaded.repo is None or loaded.selector is None or loaded.stamps is None
            or config_stamp(loaded.root, loaded.rule_pack) != loaded.config_stamp):
        return None
    return recollect(loaded.repo, loaded.change_set, loaded.stamps,
                     include_untracked=loaded.selector.include_untracked,
                     max_file_bytes=loaded.settings.git.max_file_bytes)


def rescored(loaded: LoadedChange) -> LoadedChange:
    """The same change scored by the repository's rule packs as they are now (after a
    learned rule was accepted, say), without collecting it again.

    When only learned rules or learning settings changed, the units stay and the rules run
    again; otherwise (the tagging vocabulary may have changed) the units are built again,
    through the per-file cache, whose key covers the whole pack."""
    from reviewtui.analysis import analyse_change, open_unit_cache
    from reviewtui.analysis.run import rule_context
    from reviewtui.rules import load_rule_pack
    from reviewtui.rules.engine import pack_engine
    from reviewtui.rules.packs import pack_identity
    from reviewtui.units.languages import repository_languages
    from reviewtui.units.vocabulary import vocabulary_for

    pack = load_rule_pack(loaded.root if loaded.repo is not None else None)
    if pack.pack == loaded.rule_pack.pack:
        return loaded
    engine = pack_engine(pack)
    if pack_identity(pack.pack) == pack_identity(loaded.rule_pack.pack):
        context = rule_context(loaded.change_set.files, loaded.reader)
        return replace(loaded, rule_pack=pack,
                       suggestions=engine.evaluate_all(loaded.units, context),
                       config_stamp=_restamped(loaded, pack))
    cache = None
    if loaded.use_cache and loaded.settings.units.cache and loaded.repo is not None and (
            loaded.selector is None or loaded.selector.mode is not SelectorMode.PATCH):
        cache = open_unit_cache(loaded.repo.common_dir, loaded.settings, pack.pack)
    analysis = analyse_change(loaded.change_set, loaded.reader, loaded.settings.units,
                              vocabulary_for(pack.pack.tagging, pack.sources), engine,
                              cache=cache,
                              languages=repository_languages(loaded.repo, loaded.change_set))
    return replace(loaded, units=analysis.units, rule_pack=pack,
                   suggestions=analysis.suggestions, config_stamp=_restamped(loaded, pack))


def _restamped(loaded: LoadedChange, pack: LoadedPack) -> tuple[object, ...]:
    """The config stamp after the rule packs were read again (a refresh may then still
    diff only what changed)."""
    return config_stamp(loaded.root, pack) if loaded.stamps is not None else ()
