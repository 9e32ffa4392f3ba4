"""Rules look for behaviour in code: not in docstrings, comments, string literals or imports.

The cases come from a real web framework's commit that merged two context classes: a unit became
critical partly from ``class User(db.Model):`` -- a line of a removed docstring example --
matched as a data-model change, and from ``contextvars.Token`` matched as the security keyword
``token``. Each case has a control: the same construct written as code still matches, so the
test fails if the rule stops matching altogether.
"""

from __future__ import annotations

from reviewtui.git import ChangeSelector, SelectorMode
from reviewtui.pipeline import load_change
from tests.conftest import GitRepoBuilder
from tests.unit.rules.language_cases import EvidenceCase, check
from tests.unit.rules.test_language_rules import score

CTX_BEFORE = '''import contextvars

_cv_app = contextvars.ContextVar("flask.app_ctx")


class AppContext:
    """The app context holds the application and its globals.

    Models declared against the extension work inside it::

        class User(db.Model):
            id = db.Column(db.Integer, primary_key=True)

    """

    def __init__(self, app):
        self.app = app
        self._cv_tokens = []

    def push(self):
        self._cv_tokens.append(_cv_app.set(self))
'''

CTX_DOCSTRING_CUT = CTX_BEFORE.replace('''    Models declared against the extension work inside it::

        class User(db.Model):
            id = db.Column(db.Integer, primary_key=True)

''', "").replace("        self._cv_tokens.append(_cv_app.set(self))\n",
                 "        self._cv_tokens.append(_cv_app.set(self))\n        return self\n")


def test_a_removed_docstring_example_is_not_a_data_model_change(
        repo: GitRepoBuilder) -> None:
    check(repo, EvidenceCase(
        "docstring example removed", "src/flask/ctx.py", CTX_BEFORE, CTX_DOCSTRING_CUT,
        level="function", risk={"low", "medium"},
        absent={"py:model_fields", "keyword:security", "pattern:security_sensitive"}))


def test_the_same_model_written_as_code_is_one(repo: GitRepoBuilder) -> None:
    check(repo, EvidenceCase(
        "model added as code", "src/app/models.py", "import db\n",
        "import db\n\n\nclass User(db.Model):\n    id = db.Column(db.Integer)\n",
        level="file_context", risk={"high", "critical"},
        labels={"py:model_fields(class User(db.Model):)"}))


TOKENS_BEFORE = '''import contextvars


class RequestContext:
    def __init__(self, environ):
        self.environ = environ
'''


def test_a_library_token_type_and_its_import_are_not_a_security_keyword(
        repo: GitRepoBuilder) -> None:
    after = TOKENS_BEFORE.replace("import contextvars\n",
                                  "import contextvars\nfrom contextvars import Token\n").replace(
        "        self.environ = environ\n",
        "        self.environ = environ\n"
        "        self._cv_tokens: list[contextvars.Token[RequestContext]] = []\n"
        '        self.error = "a token was reset out of order"\n')
    unit, suggestion = score(repo, EvidenceCase(
        "library token", "src/flask/ctx.py", TOKENS_BEFORE, after, level="function",
        risk={"low", "medium"}))
    assert "keyword:security(" not in suggestion.notes, suggestion.notes
    assert suggestion.risk.value in ("low", "medium"), suggestion.notes
    assert "security_sensitive" not in unit.tags


def test_a_csrf_token_in_code_is_still_a_security_keyword(repo: GitRepoBuilder) -> None:
    after = TOKENS_BEFORE.replace(
        "        self.environ = environ\n",
        "        self.environ = environ\n"
        '        self.csrf_token = environ.get("HTTP_X_CSRF")\n')
    check(repo, EvidenceCase(
        "csrf token", "src/flask/ctx.py", TOKENS_BEFORE, after, level="file_context",
        risk={"high", "critical"}, labels={"keyword:security(csrf,token)"}))


def test_a_security_word_in_a_message_or_comment_does_not_make_code_sensitive(
        repo: GitRepoBuilder) -> None:
    before = "def check(form):\n    return form.is_valid()\n"
    after = ("def check(form):\n    # the form may hold the password: do not log it\n"
             '    if not form.is_valid():\n        raise ValueError("bad password")\n'
             "    return True\n")
    unit, suggestion = score(repo, EvidenceCase(
        "message", "src/app/forms.py", before, after, level="function", risk={"low"}))
    assert "security_sensitive" not in unit.tags, unit.tags
    assert "keyword:security(" not in suggestion.notes, suggestion.notes
    # the same word as code is one
    repo.write("src/app/forms.py", after.replace("return True", "return form.password"))
    repo.commit("code")
    repo.write("src/app/forms.py", after.replace("return True",
                                                 "return check_password(form.password)"))
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.ALL))
    assert "security_sensitive" in loaded.units[0].tags


def test_evidence_names_the_added_line_not_the_first_match_in_the_unit(
        repo: GitRepoBuilder) -> None:
    before = ("def allowed(user, obj):\n    if not user.has_perm('view', obj):\n"
              "        return False\n    return True\n")
    after = ("def allowed(user, obj):\n    if not user.is_staff:\n"
             "        return False\n    return True\n")
    check(repo, EvidenceCase(
        "permission check replaced", "src/app/access.py", before, after,
        level="function", risk={"high", "critical"},
        labels={"py:permission_check(.is_staff)"}))


PARSER_BEFORE = '''class Parser:
    def parse_assign_target(self):
        target = self.stream.expect("name")
        return target
'''


def test_a_parsers_token_is_not_a_credential_but_a_reset_token_is(
        repo: GitRepoBuilder) -> None:
    after = PARSER_BEFORE.replace('        target = self.stream.expect("name")\n',
                                  '        token = self.stream.expect("name")\n'
                                  "        target = token.value\n")
    _, suggestion = score(repo, EvidenceCase(
        "parser token", "src/jinja2/parser.py", PARSER_BEFORE, after, level="function",
        risk={"low", "medium"}))
    assert "keyword:security(" not in suggestion.notes, suggestion.notes
    repo.commit("parser")
    repo.write("src/jinja2/parser.py", after.replace(
        "        target = token.value\n",
        "        target = token.value\n"
        "        ok = default_token_generator.check_token(user, token)\n"))
    loaded = load_change(repo.root, ChangeSelector(SelectorMode.ALL))
    notes = loaded.suggestions[loaded.units[0].unit_id].notes
    assert "keyword:security(token)" in notes, notes
