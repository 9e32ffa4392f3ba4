"""Resolving the endpoint: environment over files, no key needed, the key never shown."""

from __future__ import annotations

import pytest

from reviewtui.config import LLMSettings
from reviewtui.errors import LLMNotConfiguredError
from reviewtui.llm import NOT_CONFIGURED_HINT, LLMConfig, resolve_llm
from reviewtui.llm.client import LLMClient
from reviewtui.llm.settings import DEFAULT_BASE_URL, PLACEHOLDER_API_KEY

FILE = LLMSettings(model="file-model", base_url="http://file.example/v1", api_key="file-key",
                   timeout=30.0, max_retries=1, json_mode="json_object", temperature=None)


def test_file_settings_are_used_without_environment() -> None:
    config = resolve_llm(FILE, env={})
    assert (config.model, config.base_url, config.api_key) == (
        "file-model", "http://file.example/v1", "file-key")
    assert (config.timeout, config.max_retries, config.json_mode, config.temperature) == (
        30.0, 1, "json_object", None)
    assert config.configured


def test_environment_wins_over_files() -> None:
    env = {"REVIEWTUI_MODEL": "env-model", "OPENAI_BASE_URL": "http://env.example/v1",
           "OPENAI_API_KEY": "env-key"}
    config = resolve_llm(FILE, env=env)
    assert (config.model, config.base_url, config.api_key) == (
        "env-model", "http://env.example/v1", "env-key")


def test_reviewtui_variables_win_over_openai_ones() -> None:
    env = {"OPENAI_BASE_URL": "http://openai.example/v1", "REVIEWTUI_BASE_URL": "http://rt/v1",
           "OPENAI_API_KEY": "openai-key", "REVIEWTUI_API_KEY": "rt-key"}
    config = resolve_llm(LLMSettings(model="m"), env=env)
    assert (config.base_url, config.api_key) == ("http://rt/v1", "rt-key")


def test_empty_variables_count_as_unset() -> None:
    env = {"REVIEWTUI_MODEL": "", "OPENAI_API_KEY": "  "}
    config = resolve_llm(FILE, env=env)
    assert (config.model, config.api_key) == ("file-model", "file-key")


def test_os_environ_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REVIEWTUI_MODEL", "from-os-environ")
    assert resolve_llm(LLMSettings()).model == "from-os-environ"


def test_not_configured_without_a_model() -> None:
    config = resolve_llm(LLMSettings(), env={"OPENAI_API_KEY": "k"})
    assert not config.configured
    with pytest.raises(LLMNotConfiguredError) as caught:
        LLMClient(config)
    assert str(caught.value) == NOT_CONFIGURED_HINT
    assert "REVIEWTUI_MODEL" in NOT_CONFIGURED_HINT and "[llm] model" in NOT_CONFIGURED_HINT
    assert "\n" not in NOT_CONFIGURED_HINT


def test_no_key_means_a_placeholder_and_the_default_url() -> None:
    config = resolve_llm(LLMSettings(model="m"), env={})
    assert config.api_key is None and not config.has_api_key
    assert config.sdk_api_key == PLACEHOLDER_API_KEY
    assert config.endpoint == DEFAULT_BASE_URL


def test_repr_hides_the_key() -> None:
    config = resolve_llm(FILE, env={"OPENAI_API_KEY": "sk-secret-123"})
    assert "sk-secret-123" not in repr(config)
    assert "sk-secret-123" not in str(config)
    assert "api_key='***'" in repr(config)
    assert "sk-secret-123" not in repr(LLMClient(config))
    assert "api_key=None" in repr(LLMConfig(model="m"))
