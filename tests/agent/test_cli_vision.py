"""``jawad providers test NAME --vision`` as a user runs it (a real process) against the scripted
model server: a model that names the picture's colour passes and is remembered as seeing
images; a text-only model the server refuses fails the test plainly (exit code 1)."""

from __future__ import annotations

from pathlib import Path

from jawad_desktop.core.store.model_facts import ModelFactsStore
from jawad_desktop.core.store.secrets import SecretStore
from tests.agent.test_cli_tools import jawad
from tests.servers.scripted_model import ScriptedModel, call, text


def _facts(profile: Path, model: str) -> bool | None:
    found = [f for k, f in ModelFactsStore.in_folder(profile / "config").all().items() if k[2] == model]
    return found[0].vision if found else None


def test_providers_test_vision(profile_dir: Path, secret_store: SecretStore, scripted_model: ScriptedModel) -> None:
    for name, model in (("Seeing", "scripted"), ("Blind", "text-only-model")):
        added = jawad(profile_dir, "providers", "add", name, "--kind", "openai-compatible", "--base-url",
                      scripted_model.base_url, "--model", model)
        assert added.returncode == 0, added.stderr

    scripted_model.script(text("ok"), text("Red."))  # "Say ok", then the picture
    tested = jawad(profile_dir, "providers", "test", "Seeing", "--vision")
    assert tested.returncode == 0, tested.stderr
    assert "OK: Seeing answered" in tested.stdout
    assert 'Image input: Sees images: asked the colour of a red picture, it answered "Red.".' in tested.stdout
    assert "Testing whether scripted sees images…" in tested.stderr and "Traceback" not in tested.stderr
    assert _facts(profile_dir, "scripted") is True
    facts = jawad(profile_dir, "providers", "facts")
    assert "takes images" in facts.stdout and "Image test: Sees images" in facts.stdout, facts.stdout

    scripted_model.script(text("ok"), text("I cannot tell."))  # refused, then asked without the image
    failed = jawad(profile_dir, "providers", "test", "Blind", "--vision")
    assert failed.returncode == 1
    assert "jawad: Blind: Cannot see images: the provider refused the image (" in failed.stderr
    assert "image_url is only supported by certain models" in failed.stderr and "Traceback" not in failed.stderr
    assert _facts(profile_dir, "text-only-model") is False

    # Both tests at once: the exit code says whether either failed.
    scripted_model.script(text("ok"), call("get_time", {}), text("Blue."))
    both = jawad(profile_dir, "providers", "test", "Seeing", "--tools", "--vision")
    assert both.returncode == 1
    assert "Tool calling: Native tool calls work." in both.stdout
    assert 'jawad: Seeing: Cannot see images: asked the colour of a red picture, it answered "Blue."' in both.stderr
    assert _facts(profile_dir, "scripted") is False
