"""The Honcho provider, on the official `honcho-ai` SDK: a workspace, a user peer and an AI peer.

Both peers are created with `observe_me=True`, so Honcho forms a representation of the user from
what the user says and one of the agent from what the agent actually says. One Honcho session
mirrors each local session; a compression split opens a new one whose metadata names its parent.
The SDK (and its `httpx` stack, separate from the `httpx2` that openai uses) is imported here only,
and this module is imported only when Honcho is the active provider.
"""

from __future__ import annotations

import datetime
import hashlib
import re
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import httpx
import pydantic
from honcho import (
    APIError,
    AuthenticationError,
    Honcho,
    HonchoError,
    PermissionDeniedError,
    ServerError,
)
from honcho import ConnectionError as HonchoConnectionError
from honcho import TimeoutError as HonchoTimeoutError
from honcho import __version__ as SDK_VERSION
from honcho.api_types import PeerConfig, SessionPeerConfig

from engine.providers.base import (
    MirroredMessage,
    ObservedIdentity,
    PrefetchResult,
    ProbeResult,
    ProviderConfigError,
    ProviderError,
)
from engine.text.sentences import sentence

if TYPE_CHECKING:
    from honcho import Peer, Session

    from engine.config import Config
    from engine.home import Home

PRODUCTION_URL = "https://api.honcho.dev"
API_KEY_ENV = "HONCHO_API_KEY"
RESOURCE_NAME = re.compile(r"^[A-Za-z0-9_-]{1,512}$")
MAX_BATCH = 100  # messages per add_messages call, the server's limit
SESSION_SOURCE = "hermes-workstation"


@dataclass(frozen=True)
class HonchoSettings:
    """The `honcho.*` settings resolved against `.env`, validated once."""

    base_url: str
    api_key: str
    workspace: str
    user_peer: str
    ai_peer: str
    timeout: float
    max_retries: int
    reasoning_level: str
    dialectic_query: str
    max_conclusions: int
    message_max_chars: int

    @classmethod
    def from_config(cls, config: Config) -> HonchoSettings:
        section = config.honcho
        api_key = str(section.api_key or config.secret(API_KEY_ENV)).strip()
        base_url = str(section.base_url or "").strip().rstrip("/")
        if not base_url:
            if not api_key:
                raise ProviderConfigError(
                    "Honcho is the memory provider but neither `honcho.base_url` nor "
                    f"{API_KEY_ENV} (in .env) is set; set one, or clear `memory.provider`."
                )
            base_url = PRODUCTION_URL
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ProviderConfigError(
                f"`honcho.base_url` is {base_url!r}, which is not an http(s) URL; "
                "write it like http://127.0.0.1:8000."
            )
        for key in ("workspace", "user_peer", "ai_peer"):
            value = str(section[key])
            if not RESOURCE_NAME.match(value):
                raise ProviderConfigError(
                    f"`honcho.{key}` is {value!r}; Honcho ids use only letters, digits, '_' and '-' "
                    "(1 to 512 characters)."
                )
        if section.user_peer == section.ai_peer:
            raise ProviderConfigError(
                f"`honcho.user_peer` and `honcho.ai_peer` are both {section.user_peer!r}; the user and "
                "the agent must be two different peers."
            )
        return cls(
            base_url=base_url,
            api_key=api_key,
            workspace=str(section.workspace),
            user_peer=str(section.user_peer),
            ai_peer=str(section.ai_peer),
            timeout=float(section.timeout),
            max_retries=int(section.max_retries),
            reasoning_level=str(section.reasoning_level),
            dialectic_query=str(section.dialectic_query),
            max_conclusions=int(section.max_conclusions),
            message_max_chars=int(section.message_max_chars),
        )


def remote_session_id(local_session_id: str) -> str:
    """The Honcho session id of a local session: the same id when Honcho accepts it, else a safe one."""
    if RESOURCE_NAME.match(local_session_id):
        return local_session_id
    cleaned = re.sub(r"[^A-Za-z0-9_-]+", "-", local_session_id).strip("-")[:480] or "session"
    digest = hashlib.sha256(local_session_id.encode("utf-8")).hexdigest()[:12]
    return f"{cleaned}-{digest}"


def split_content(text: str, limit: int) -> list[str]:
    """Cut a long message into parts Honcho accepts, at line or word breaks where possible."""
    parts: list[str] = []
    rest = text
    while len(rest) > limit:
        cut = rest.rfind("\n", 0, limit)
        if cut < limit // 2:
            cut = rest.rfind(" ", 0, limit)
        if cut < limit // 2:
            cut = limit
        parts.append(rest[:cut])
        rest = rest[cut:].lstrip("\n ")
    parts.append(rest)
    return [part for part in parts if part.strip()]


def dialectic_question(template: str, last_user: str, limit: int = 2000) -> str:
    """The configured question with the user's last message in it (plain replace: braces stay braces)."""
    said = " ".join(last_user.split())
    if len(said) > limit:
        said = said[: limit - 1] + "…"
    return template.replace("{last_user}", said or "(nothing yet)").strip()


class HonchoProvider:
    """External memory in Honcho; every method blocks on the network and raises `ProviderError`."""

    name = "honcho"

    def __init__(self, settings: HonchoSettings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._http: httpx.Client | None = None
        self._client: Honcho | None = None
        self._peers: tuple[Peer, Peer] | None = None
        self._sessions: dict[str, Session] = {}
        self._pool: ThreadPoolExecutor | None = None

    @classmethod
    def from_config(cls, home: Home, config: Config) -> HonchoProvider:
        del home  # Honcho keeps nothing under the home; the signature is the registry's
        return cls(HonchoSettings.from_config(config))

    # -- plumbing -------------------------------------------------------------------------------

    def _honcho(self) -> Honcho:
        with self._lock:
            if self._client is None:
                # Our own httpx.Client, so close() can release it (the SDK keeps no public close).
                self._http = httpx.Client(base_url=self.settings.base_url, timeout=self.settings.timeout)
                self._client = Honcho(
                    base_url=self.settings.base_url,
                    api_key=self.settings.api_key or None,
                    workspace_id=self.settings.workspace,
                    timeout=self.settings.timeout,
                    max_retries=self.settings.max_retries,
                    http_client=self._http,
                )
            return self._client

    def _parallel(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=3, thread_name_prefix="hws-honcho")
            return self._pool

    def _ensure_peers(self) -> tuple[Peer, Peer]:
        if self._peers is None:
            client = self._honcho()
            observed = PeerConfig(observe_me=True)
            user = client.peer(self.settings.user_peer, configuration=observed, metadata={"role": "user"})
            ai = client.peer(self.settings.ai_peer, configuration=observed, metadata={"role": "assistant"})
            self._peers = (user, ai)
        return self._peers

    def _session(self, session_id: str) -> Session:
        session = self._sessions.get(session_id)
        if session is None:
            self.start_session(session_id)
            session = self._sessions[session_id]
        return session

    def _fail(self, what: str, exc: BaseException) -> ProviderError:
        return ProviderError(f"{what}: {self.explain(exc)}")

    def explain(self, exc: BaseException) -> str:
        """One sentence for an SDK failure, naming the server and what to check."""
        url = self.settings.base_url
        if isinstance(exc, ProviderError):
            return str(exc)
        if isinstance(exc, HonchoTimeoutError):
            return f"Honcho at {url} did not answer within {self.settings.timeout:g} s."
        if isinstance(exc, HonchoConnectionError):
            detail = str(exc).removeprefix("Connection error: ")
            return f"cannot reach Honcho at {url} ({detail})."
        if isinstance(exc, (AuthenticationError, PermissionDeniedError)):
            return (
                f"Honcho at {url} refused the API key (HTTP {exc.status}); "
                f"check {API_KEY_ENV} in .env or `honcho.api_key`."
            )
        if isinstance(exc, ServerError):
            return f"Honcho at {url} failed with HTTP {exc.status} ({exc.message})."
        if isinstance(exc, APIError):
            return f"Honcho at {url} rejected the request with HTTP {exc.status} ({exc.message})."
        if isinstance(exc, HonchoError):
            return sentence(f"Honcho at {url}: {exc.message}")
        if isinstance(exc, pydantic.ValidationError):
            return (
                f"Honcho at {url} answered with data honcho-ai {SDK_VERSION} cannot read "
                f"({exc.error_count()} problems); check the server's version."
            )
        return f"Honcho call failed ({type(exc).__name__}: {exc})."

    # -- the provider protocol ------------------------------------------------------------------

    def describe(self) -> dict[str, Any]:
        s = self.settings
        return {
            "provider": self.name,
            "base_url": s.base_url,
            "workspace": s.workspace,
            "user_peer": s.user_peer,
            "ai_peer": s.ai_peer,
            "api_key": "set" if s.api_key else "not set",
            "timeout_s": s.timeout,
            "max_retries": s.max_retries,
            "sdk": f"honcho-ai {SDK_VERSION}",
        }

    def start_session(self, session_id: str, parent_session_id: str | None = None) -> None:
        try:
            user, ai = self._ensure_peers()
            client = self._honcho()
            remote = remote_session_id(session_id)
            session = client.session(
                remote,
                peers=[
                    (user, SessionPeerConfig(observe_me=True, observe_others=False)),
                    (ai, SessionPeerConfig(observe_me=True, observe_others=True)),
                ],
            )
            current = dict(session.metadata or {})
            wanted: dict[str, object] = {"source": SESSION_SOURCE, "local_session_id": session_id}
            if parent_session_id:
                wanted["parent_session_id"] = remote_session_id(parent_session_id)
                wanted["parent_local_session_id"] = parent_session_id
            if any(current.get(key) != value for key, value in wanted.items()):
                session.set_metadata({**current, **wanted})
            if parent_session_id:
                parent = client.session(remote_session_id(parent_session_id))
                parent_meta = dict(parent.metadata or {})
                if parent_meta.get("continued_in") != remote:
                    parent.set_metadata({**parent_meta, "continued_in": remote})
            self._sessions[session_id] = session
        except Exception as exc:
            raise self._fail("Opening the Honcho session failed", exc) from exc

    def mirror(self, session_id: str, messages: list[MirroredMessage]) -> int:
        try:
            user, ai = self._ensure_peers()
            session = self._session(session_id)
            params = []
            for message in messages:
                peer = user if message.role == "user" else ai if message.role == "assistant" else None
                if peer is None:
                    continue
                when = datetime.datetime.fromtimestamp(message.created_at, tz=datetime.UTC)
                parts = split_content(message.content, self.settings.message_max_chars)
                for index, part in enumerate(parts):
                    meta: dict[str, object] = {"role": message.role, "local_session_id": session_id}
                    if len(parts) > 1:
                        meta["part"] = f"{index + 1}/{len(parts)}"
                    params.append(peer.message(part, metadata=meta, created_at=when))
            for start in range(0, len(params), MAX_BATCH):
                session.add_messages(params[start : start + MAX_BATCH])
            return len(params)
        except ProviderError:
            raise
        except Exception as exc:
            raise self._fail("Mirroring messages to Honcho failed", exc) from exc

    def quick_prefetch(self, session_id: str, last_user: str) -> PrefetchResult | None:
        del session_id, last_user  # every answer is a network call: the first turn waits for prefetch
        return None

    def prefetch(self, session_id: str, last_user: str) -> PrefetchResult:
        started = time.monotonic()
        try:
            user, ai = self._ensure_peers()
        except Exception as exc:
            raise self._fail("Fetching Honcho context failed", exc) from exc
        question = dialectic_question(self.settings.dialectic_query, last_user)
        pool = self._parallel()
        n = self.settings.max_conclusions
        futures: dict[str, Future[Any]] = {
            "user": pool.submit(user.context, max_conclusions=n),
            "ai": pool.submit(ai.context, max_conclusions=n),
            "dialectic": pool.submit(
                user.chat,
                question,
                reasoning_level=self.settings.reasoning_level,  # type: ignore[arg-type]
            ),
        }
        values: dict[str, Any] = {}
        errors: list[str] = []
        for key, future in futures.items():
            try:
                values[key] = future.result()
            except Exception as exc:
                errors.append(f"{key}: {self.explain(exc)}")
        if not values:
            raise ProviderError(f"Fetching Honcho context failed: {errors[0].split(': ', 1)[1]}")
        user_ctx, ai_ctx = values.get("user"), values.get("ai")
        answer = values.get("dialectic")
        return PrefetchResult(
            session_id=session_id,
            user_representation=(user_ctx.representation or "") if user_ctx else "",
            ai_representation=(ai_ctx.representation or "") if ai_ctx else "",
            user_card=tuple(user_ctx.peer_card or ()) if user_ctx else (),
            ai_card=tuple(ai_ctx.peer_card or ()) if ai_ctx else (),
            dialectic_question=question,
            dialectic_answer=answer if isinstance(answer, str) else "",
            duration_s=time.monotonic() - started,
            errors=tuple(errors),
        )

    def dialectic(self, question: str, session_id: str | None = None) -> str:
        try:
            user, _ = self._ensure_peers()
            session = remote_session_id(session_id) if session_id else None
            answer = user.chat(
                question,
                session=session,
                reasoning_level=self.settings.reasoning_level,  # type: ignore[arg-type]
            )
        except Exception as exc:
            raise self._fail("Asking Honcho failed", exc) from exc
        return answer if isinstance(answer, str) else ""

    def on_memory_write(self, action: str, target: str, content: str) -> None:
        del action, target, content  # Honcho forms its own view from the mirrored conversation

    def observed_identity(self) -> ObservedIdentity:
        try:
            user, ai = self._ensure_peers()
            pool = self._parallel()
            n = self.settings.max_conclusions
            user_future = pool.submit(user.context, max_conclusions=n)
            ai_future = pool.submit(ai.context, max_conclusions=n)
            user_ctx, ai_ctx = user_future.result(), ai_future.result()
        except Exception as exc:
            raise self._fail("Reading the Honcho peers failed", exc) from exc
        return ObservedIdentity(
            user_peer=self.settings.user_peer,
            ai_peer=self.settings.ai_peer,
            user_representation=user_ctx.representation or "",
            ai_representation=ai_ctx.representation or "",
            user_card=tuple(user_ctx.peer_card or ()),
            ai_card=tuple(ai_ctx.peer_card or ()),
        )

    def probe(self) -> ProbeResult:
        started = time.monotonic()
        settings = self.describe()
        try:
            client = self._honcho()
            client.get_configuration()  # get-or-create of the workspace: the cheapest real call
            latency = (time.monotonic() - started) * 1000
            wanted = {self.settings.user_peer: "user", self.settings.ai_peer: "ai"}
            peers: dict[str, dict[str, Any]] = {
                role: {"id": peer_id, "exists": False, "observe_me": None} for peer_id, role in wanted.items()
            }
            for peer in client.peers(filters={"id": {"in": list(wanted)}}).items:
                if peer.id in wanted:
                    observe = peer.configuration.observe_me if peer.configuration else None
                    peers[wanted[peer.id]].update(exists=True, observe_me=observe)
            queue = client.queue_status()
        except Exception as exc:
            return ProbeResult(
                self.name,
                reachable=False,
                settings=settings,
                latency_ms=(time.monotonic() - started) * 1000,
                error=self.explain(exc),
            )
        return ProbeResult(
            self.name,
            reachable=True,
            settings=settings,
            latency_ms=latency,
            details={
                "workspace_uid": client.uid,
                "peers": peers,
                "queue": {
                    "pending": queue.pending_work_units,
                    "in_progress": queue.in_progress_work_units,
                    "completed": queue.completed_work_units,
                    "total": queue.total_work_units,
                },
            },
        )

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
            http, self._http = self._http, None
            self._client, self._peers = None, None
            self._sessions.clear()
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        if http is not None:
            http.close()
