"""API keys and other secrets: the OS keyring (service ``jawad-desktop``), or memory.

Secrets are never written to a file by this app. Only the keyring package's own OS
backends are accepted (Secret Service, libsecret, KWallet, macOS Keychain, Windows
Credential Locker); third-party backends that may write plain files are refused. When no
backend works, the store says why and can keep keys for this session only, in memory.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jawad_desktop import APP_ID
from jawad_desktop.core.errors import JawadError

if TYPE_CHECKING:
    from keyring.backend import KeyringBackend

log = logging.getLogger("jawad.store.secrets")

SERVICE = APP_ID

_OS_BACKEND_MODULES = {
    "linux": ("keyring.backends.SecretService", "keyring.backends.libsecret", "keyring.backends.kwallet"),
    "darwin": ("keyring.backends.macOS",),
    "win32": ("keyring.backends.Windows",),
}
_REFUSED = ("keyring.backends.fail", "keyring.backends.null", "keyring.backends.chainer")


class SecretStoreError(JawadError):
    """A secret could not be stored or read."""


def _errors() -> Any:
    # keyring (and D-Bus bindings under it) is imported on first use, not at start-up.
    import keyring.errors

    return keyring.errors


def _candidate_backends() -> list[KeyringBackend]:
    """Viable OS backends from the keyring package itself, best first."""
    from keyring.backend import KeyringBackend

    modules = _OS_BACKEND_MODULES.get(sys.platform, _OS_BACKEND_MODULES["linux"])
    for name in modules:
        with contextlib.suppress(Exception):
            importlib.import_module(name)
    viable: list[tuple[float, KeyringBackend]] = []
    for cls in KeyringBackend.get_viable_backends():
        module = cls.__module__
        if not module.startswith("keyring.backends.") or module.startswith(_REFUSED):
            continue
        try:
            viable.append((float(cls.priority), cls()))
        except Exception as exc:  # a backend that cannot even be built is not viable
            log.debug("keyring backend %s unusable: %s", cls, exc)
    viable.sort(key=lambda item: item[0], reverse=True)
    return [backend for _, backend in viable]


@dataclass
class SecretStore:
    """Get, set and delete secrets by name; names are e.g. ``provider:OpenAI``."""

    backend: KeyringBackend | None = None
    problem: str = ""  # why no keyring is usable, for the user
    session_only: bool = False
    _memory: dict[str, str] = field(default_factory=dict, repr=False)

    @classmethod
    def detect(cls) -> SecretStore:
        """Find a working OS keyring; on failure the store explains why and holds nothing."""
        errors: list[str] = []
        for backend in _candidate_backends():
            try:
                backend.get_password(SERVICE, "__jawad_probe__")
            except Exception as exc:
                errors.append(f"{type(backend).__module__}: {exc}")
                continue
            log.info("using keyring backend %s", type(backend).__module__)
            return cls(backend=backend)
        detail = "; ".join(errors) if errors else "no Secret Service, KWallet or system keychain was found"
        return cls(
            problem=(
                "No system keyring is available to keep API keys safely "
                f"({detail}). Start your desktop's keyring (e.g. GNOME Keyring or KWallet), "
                "or keep keys for this session only."
            )
        )

    @property
    def available(self) -> bool:
        """True when secrets can be stored (a keyring, or memory for this session)."""
        return self.backend is not None or self.session_only

    @property
    def backend_name(self) -> str:
        if self.backend is not None:
            return f"{type(self.backend).__module__}.{type(self.backend).__name__}"
        return "session memory" if self.session_only else "none"

    def use_session_memory(self) -> None:
        """Keep secrets in memory for this session only (the user agreed to it)."""
        self.session_only = True

    def get(self, name: str) -> str | None:
        if self.backend is None:
            return self._memory.get(name)
        try:
            return self.backend.get_password(SERVICE, name)
        except _errors().KeyringError as exc:
            raise SecretStoreError(
                f"The system keyring could not read the secret for {name!r}: {exc}",
                suggestions=["Unlock your keyring and try again."],
            ) from None

    def set(self, name: str, value: str) -> None:
        if self.backend is None:
            if not self.session_only:
                raise SecretStoreError(
                    self.problem or "No keyring is available.",
                    suggestions=["Set up or unlock a system keyring, or keep the key for this session only "
                                 "(until you quit)."],
                )
            self._memory[name] = value
            return
        try:
            self.backend.set_password(SERVICE, name, value)
        except _errors().KeyringError as exc:
            # The message of the backend never contains the secret; say only which name failed.
            raise SecretStoreError(
                f"The system keyring refused to store the secret for {name!r} ({type(exc).__name__}).",
                suggestions=["Unlock your keyring and try again."],
            ) from None

    def delete(self, name: str) -> None:
        if self.backend is None:
            self._memory.pop(name, None)
            return
        errors = _errors()
        with contextlib.suppress(errors.PasswordDeleteError):
            try:
                self.backend.delete_password(SERVICE, name)
            except errors.PasswordDeleteError:
                raise
            except errors.KeyringError as exc:
                raise SecretStoreError(
                    f"The system keyring could not delete the secret for {name!r}.",
                    suggestions=["Unlock your keyring and try again."],
                ) from exc


def provider_key_name(provider_name: str) -> str:
    """The keyring user name under which a provider's API key is kept."""
    return f"provider:{provider_name}"
