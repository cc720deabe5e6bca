"""The ports of a recorded run and of its replay.

``Recorder`` wraps a run's real ports: each chat model (every reply it gives, keyed by the
model and the exact messages), the response cache (every reply it serves from an earlier
run, so those are in the recording too), the search provider (results or the error, keyed
by provider, query and limit), the fetcher (the page or the error, keyed by URL), the
image fetcher of the report's figures (the image or the error, keyed by URL) and the
clock the stages stamp reports with, what the owner's library offered; and, for a run under a budget, every decision of its
budget guard (``budget``: where it was made, whether it let the call or the work go on, and
what ended the run), and each attempt the gateway cut at its timeout (a failed reply, so the
replay's attempt is cut there too). ``Player`` is the other side: ports that answer only
from a recording, a budget guard that decides as the recorded one did, and a note of every
question the recording has no answer for (a miss), so the replay fails saying what is
missing instead of making a call. Keys never depend on the order of calls, so concurrent
stages replay whatever order they ask in. Both answer ``replay.base.RunTape``, the one
protocol the composition root hands every port to."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextvars import ContextVar
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, message_to_dict, messages_from_dict
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import BaseModel, ConfigDict, PrivateAttr

import deepresearch.errors as error_tree
from deepresearch.context import ThreadStore
from deepresearch.errors import FetchError, ProviderError, RunError
from deepresearch.fetch.base import FetchedPage, Fetcher, ImageFetcher
from deepresearch.librarydb.shelf import Shelf
from deepresearch.llm.budget import BudgetGuard, Verdict
from deepresearch.llm.cache import ResponseCache
from deepresearch.llm.endpoints import Endpoint
from deepresearch.llm.failures import classify, status_of
from deepresearch.llm.gateway import Gateway
from deepresearch.llm.invoke import CallTimedOut, call_key
from deepresearch.models import SearchHit
from deepresearch.replay.answers import (
    HOLDS,
    RecordingShelf,
    RecordingThreads,
    ReplayShelf,
    ReplayThreads,
    recorded_answers,
    recorded_parents,
)
from deepresearch.replay.base import CouncilBuilder, NoTape
from deepresearch.replay.tape import Tape, document_digest, settings_snapshot, versions
from deepresearch.search.base import SearchProvider
from deepresearch.search.fanout import OnFailure
from deepresearch.settings_values import ROLES, Role

#: the failures of single providers reported during the search being recorded (a fan-out
#: tells them through its ``on_failure`` while the others answer); a context variable, so
#: concurrent searches each collect their own
_SEARCH_FAILURES: ContextVar[list[dict[str, str]] | None] = ContextVar(
    "search_failures", default=None
)


class ReplayMiss(RuntimeError):
    """A replayed port was asked something its recording has no answer for."""


class RecordedFailure(Exception):
    """A model call that failed while the run was recorded, raised again by the replay."""


def failure_entry(exc: Exception) -> dict[str, Any]:
    """What the gateway reads from a failed call's exception (``llm.failures.classify``:
    its HTTP status, Retry-After, class names; its class name in the report's limitations),
    without the message, which may quote a key."""
    failure = classify(exc)
    return {
        "type": type(exc).__name__,
        "names": [cls.__name__ for cls in type(exc).__mro__],
        "status": status_of(exc),
        "retry_after": failure.retry_after_s,
        "timeout": isinstance(exc, TimeoutError),
        "connection": isinstance(exc, ConnectionError),
    }


def failure_from(entry: Mapping[str, Any]) -> Exception:
    """An exception the gateway classifies and names as the recorded one."""
    bases: list[type[Exception]] = [RecordedFailure]
    if entry.get("timeout"):
        bases.append(TimeoutError)
    elif entry.get("connection"):
        bases.append(ConnectionError)
    # the class names the gateway matches on, as (empty) classes of the recorded names
    builtin = {"Exception", "BaseException", "object", "TimeoutError", "OSError"}
    for name in entry.get("names", [])[1:]:
        if name not in builtin | {"ConnectionError"}:
            bases.append(type(str(name), (Exception,), {}))
    cls: type[Exception] = type(str(entry.get("type", "Exception")), tuple(bases), {})
    exc = cls(f"a recorded {entry.get('type')} failure")
    if entry.get("status") is not None:
        exc.status_code = entry["status"]  # type: ignore[attr-defined]
    if entry.get("retry_after") is not None:  # read from the response's headers
        exc.response = SimpleNamespace(  # type: ignore[attr-defined]
            status_code=entry.get("status"), headers={"retry-after": str(entry["retry_after"])}
        )
    return exc


#: the key of one chat request: the model's name and every message's type and text (the
#: gateway names a call's budget decisions by it too)
reply_key = call_key


def search_key(provider: str, query: str, limit: int) -> str:
    return json.dumps([provider, query, limit], ensure_ascii=False)


def _error_entry(exc: Exception) -> dict[str, Any]:
    if not isinstance(exc, RunError):
        # not one of ours: the research unit that asked fails (``core.units``); the text
        # of such an error may hold anything, so only its class is kept
        return {"error": type(exc).__name__, "unexpected": True}
    return {
        "error": type(exc).__name__,
        "message": getattr(exc, "message", str(exc)),
        "provider": getattr(exc, "provider", None),
    }


def _raise_recorded(entry: Mapping[str, Any], fallback: type[RunError]) -> None:
    """Raise the error a port raised while the run was recorded (the same class of our
    error tree, the same message); one not of ours as a ``RecordedFailure`` of its name."""
    if entry.get("unexpected"):
        name = str(entry.get("error", "Exception"))
        raise type(name, (RecordedFailure,), {})(f"a recorded {name} failure")
    cls = getattr(error_tree, str(entry.get("error")), None)
    if not (isinstance(cls, type) and issubclass(cls, RunError)):
        cls = fallback
    message = str(entry.get("message", ""))
    if issubclass(cls, ProviderError):
        raise cls(message, provider=str(entry.get("provider") or ""))
    raise cls(message)


# recording ---------------------------------------------------------------------------


class RecordingChatModel(BaseChatModel):
    """A chat model that writes every reply of ``inner`` to the tape."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    inner: BaseChatModel
    model_name: str
    _tape: Tape = PrivateAttr()

    def __init__(self, inner: BaseChatModel, model_name: str, tape: Tape) -> None:
        super().__init__(inner=inner, model_name=model_name)
        self._tape = tape

    @property
    def _llm_type(self) -> str:
        return "recording"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._keep(messages, self.inner.invoke(messages))

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        try:
            reply = await self.inner.ainvoke(messages)
        except Exception as exc:  # kept, so the replay fails the same way (and retries)
            key = reply_key(self.model_name, messages)
            self._tape.append("replies", {"key": key, "failure": failure_entry(exc)})
            raise
        return self._keep(messages, reply)

    def _keep(self, messages: list[BaseMessage], reply: BaseMessage) -> ChatResult:
        key = reply_key(self.model_name, messages)
        self._tape.append("replies", {"key": key, "reply": message_to_dict(reply)})
        return ChatResult(generations=[ChatGeneration(message=reply)])


class RecordingCache(ResponseCache):
    """The response cache, with every reply it serves written to the tape."""

    def __init__(self, inner: ResponseCache, tape: Tape) -> None:  # no file of its own
        self._inner = inner
        self._tape = tape
        # replies this run stored itself: a replay stores them again, so a later hit on
        # one is not an answer from outside (taping it would let the replay skip the call).
        # Noted on the tape too: a run that paused (or was resumed after a crash) goes on
        # in a new part with a new cache, and its first part's replies are still its own
        self._own: set[str] = {str(entry["key"]) for entry in tape.entries("stored")}

    async def get(self, key: str) -> str | None:
        reply = await self._inner.get(key)
        if reply is not None and key not in self._own:
            self._tape.append("cache", {"key": key, "reply": reply})
        return reply

    async def put(self, key: str, reply: str, *, model: str = "") -> None:
        if key not in self._own:
            self._own.add(key)
            self._tape.append("stored", {"key": key})
        await self._inner.put(key, reply, model=model)

    def close(self) -> None:
        self._inner.close()

    def __len__(self) -> int:
        return len(self._inner)


class RecordingSearch:
    """A search provider whose every answer (or error) is written to the tape."""

    def __init__(self, inner: SearchProvider, tape: Tape) -> None:
        self.inner = inner
        self.name = inner.name
        self.supports_operators = inner.supports_operators
        self._tape = tape

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        key = search_key(self.name, query, limit)
        failures: list[dict[str, str]] = []
        token = _SEARCH_FAILURES.set(failures)
        try:
            hits = await self.inner.search(query, limit=limit)
        except Exception as exc:
            self._tape.append("searches", {"key": key, **_error_entry(exc)})
            raise
        finally:
            _SEARCH_FAILURES.reset(token)
        dumped = [hit.model_dump(mode="json") for hit in hits]
        self._tape.append("searches", {"key": key, "hits": dumped, "failures": failures})
        return hits


class RecordingFetcher:
    """A fetcher whose every page (or error) is written to the tape."""

    def __init__(self, inner: Fetcher, tape: Tape) -> None:
        self.inner = inner
        self._tape = tape

    async def fetch(self, url: str) -> FetchedPage:
        try:
            page = await self.inner.fetch(url)
        except Exception as exc:
            self._tape.append("pages", {"url": url, **_error_entry(exc)})
            raise
        self._tape.append("pages", {"url": url, "page": _page_entry(page)})
        return page


class RecordingImages:
    """An image fetcher whose every image (or error) is written to the tape."""

    def __init__(self, inner: ImageFetcher, tape: Tape) -> None:
        self.inner = inner
        self._tape = tape

    async def fetch_image(self, url: str, *, max_bytes: int) -> FetchedPage:
        try:
            page = await self.inner.fetch_image(url, max_bytes=max_bytes)
        except Exception as exc:
            self._tape.append("images", {"url": url, **_error_entry(exc)})
            raise
        self._tape.append("images", {"url": url, "page": _page_entry(page)})
        return page


def _page_entry(page: FetchedPage) -> dict[str, Any]:
    entry = page.model_dump(mode="json", exclude={"content"})
    entry["content_b64"] = base64.b64encode(page.content).decode("ascii")
    return entry


def _page_from(entry: Mapping[str, Any]) -> FetchedPage:
    if "error" in entry:
        _raise_recorded(entry, FetchError)
    data = dict(entry["page"])
    content = base64.b64decode(data.pop("content_b64"))
    return FetchedPage.model_validate({**data, "content": content})


class Recorder:
    """Wraps a run's ports so that everything they answer goes to ``tape``."""

    replaying = False

    def __init__(self, tape: Tape) -> None:
        self.tape = tape

    def begin(
        self,
        *,
        run_id: str,
        recipe: str,
        request: BaseModel,
        settings: BaseModel,
        gateway: Gateway,
        search: SearchProvider,
        council: Iterable[str],
    ) -> None:
        """A new run starts: write what it is (the manifest a replay starts from)."""
        self.tape.write_manifest(
            {
                "run_id": run_id,
                "recipe": recipe,
                "request": request.model_dump(mode="json"),
                "settings": settings_snapshot(settings),
                "models": {role: gateway.model_name(role) for role in ROLES},
                "endpoints": endpoint_records(gateway),
                "council_models": list(council),
                "search": {"name": search.name, "operators": search.supports_operators},
                "boundary": gateway.boundary,
                "versions": versions(),
                "holds": list(HOLDS),
                "finished": False,
            }
        )

    def waited(self) -> None:
        """The run paused for a person (a clarifying question, a plan to review): its
        replay feeds the answer it gets (``answered``)."""
        if self.tape.exists():
            manifest = self.tape.manifest()
            manifest["waited_for_input"] = True
            self.tape.write_manifest(manifest)

    def cut(self, what: str) -> None:
        """A part of the run was cut at a time limit (``what``: a research unit past
        ``unit_timeout_s``): what it had done by then depends on the machine's speed, so
        the replay refuses (``replay.play.refuse_inexact``) instead of differing."""
        if self.tape.exists():
            manifest = self.tape.manifest()
            manifest["cut"] = [*manifest.get("cut", []), what]
            self.tape.write_manifest(manifest)

    def answered(self, pause: str, kind: str, answer: Any) -> None:
        """The run resumes at pause ``pause`` with ``answer`` (checked: what a replay
        resumes with)."""
        self.tape.append("answers", {"pause": pause, "kind": kind, "answer": answer})

    def threads(self, stored: Callable[[], ThreadStore]) -> ThreadStore | None:
        return RecordingThreads(stored(), self.tape)

    def library(self, shelf: Callable[[], Shelf]) -> Shelf | None:
        return RecordingShelf(shelf(), self.tape)

    def finish(self, document: BaseModel) -> None:
        """The run finished: its document's digest, so a replay can prove it is equal."""
        if not self.tape.exists():  # a resumed run started before recording: not exact
            return
        manifest = self.tape.manifest()
        manifest.update(finished=True, result_sha256=document_digest(document))
        self.tape.write_manifest(manifest)

    def model(self, model: BaseChatModel, name: str) -> BaseChatModel:
        return RecordingChatModel(model, name, self.tape)

    def cache(self, cache: ResponseCache) -> ResponseCache:
        return RecordingCache(cache, self.tape)

    def search(self, search: SearchProvider) -> SearchProvider:
        return RecordingSearch(search, self.tape)

    def fetcher(self, fetcher: Fetcher) -> Fetcher:
        return RecordingFetcher(fetcher, self.tape)

    def images(self, images: ImageFetcher | None) -> ImageFetcher | None:
        return None if images is None else RecordingImages(images, self.tape)

    def endpoints(self, endpoints: Mapping[Role, Endpoint]) -> Mapping[Role, Endpoint]:
        return endpoints

    def council(self, build: CouncilBuilder) -> dict[str, BaseChatModel | None]:
        return {spec: m and self.model(m, spec) for spec, m in build().items()}

    def search_failures(self, on_failure: OnFailure) -> OnFailure:
        """``on_failure``, also noting each failure in the search that reported it."""

        def noted(error: ProviderError) -> None:
            failures = _SEARCH_FAILURES.get()
            if failures is not None:
                failures.append({"provider": error.provider, "message": error.message})
            on_failure(error)

        return noted

    def budget(self, guard: BudgetGuard, gateway: Gateway) -> None:
        """Keep every decision of ``guard`` (a run under a budget), and every attempt
        ``gateway`` cut at its timeout (under a time budget, or ``model_timeout_s``)."""
        if guard.limits.any:
            guard.record = self.decided
        gateway.on_timeout = self.timed_out

    def decided(self, at: str, verdict: Verdict) -> None:
        entry: dict[str, Any] = {"at": at, "over": verdict.over}
        if verdict.over is not None:
            entry.update(message=verdict.message, spend=dict(verdict.spend))
        self.tape.append("budget", entry)

    def timed_out(self, model: str, messages: Sequence[BaseMessage]) -> None:
        failure = failure_entry(CallTimedOut("cut at its timeout"))
        self.tape.append("replies", {"key": reply_key(model, messages), "failure": failure})

    def clock(self, clock: Callable[[], datetime]) -> Callable[[], datetime]:
        def now() -> datetime:
            moment = datetime.now(UTC)
            self.tape.append("clock", {"at": moment.isoformat()})
            return moment

        return now


# replaying ---------------------------------------------------------------------------


class ReplayChatModel(BaseChatModel):
    """A chat model that answers only from a recording (``model_name`` is the recorded
    model's, so the gateway's keys and usage are the recorded run's)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    model_name: str
    _player: Player = PrivateAttr()

    def __init__(self, model_name: str, player: Player) -> None:
        super().__init__(model_name=model_name)
        self._player = player

    @property
    def _llm_type(self) -> str:
        return "replay"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        reply = self._player.reply(self.model_name, messages)
        return ChatResult(generations=[ChatGeneration(message=reply)])


class ReplayCache(ResponseCache):
    """The replies the recorded run's cache served, and what this replay stores."""

    def __init__(self, replies: Mapping[str, str]) -> None:  # no file: nothing outlives it
        self._replies = dict(replies)

    async def get(self, key: str) -> str | None:
        return self._replies.get(key)

    async def put(self, key: str, reply: str, *, model: str = "") -> None:
        self._replies[key] = reply

    def close(self) -> None:
        pass

    def __len__(self) -> int:
        return len(self._replies)


class ReplaySearch:
    """A search provider answering only from a recording."""

    def __init__(self, name: str, supports_operators: bool, player: Player) -> None:
        self.name = name
        self.supports_operators = supports_operators
        self._player = player

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        return self._player.results(self.name, query, limit)


class ReplayImages:
    """An image fetcher answering only from a recording."""

    def __init__(self, player: Player) -> None:
        self._player = player

    async def fetch_image(self, url: str, *, max_bytes: int) -> FetchedPage:
        return self._player.image(url)


class ReplayFetcher:
    """A fetcher answering only from a recording."""

    def __init__(self, player: Player) -> None:
        self._player = player

    async def fetch(self, url: str) -> FetchedPage:
        return self._player.page(url)


def endpoint_records(gateway: Gateway) -> dict[str, dict[str, Any]]:
    """What a replay needs of each role's endpoint: which roles share slots (a digest of
    the endpoint's identity), how many calls at once, and whether the server is the
    user's own (its ``host:port`` only: a base URL may hold credentials)."""
    records: dict[str, dict[str, Any]] = {}
    for role in ROLES:
        endpoint = gateway.endpoint(role)
        if endpoint is not None:
            records[role] = {
                "key": hashlib.sha256(endpoint.key.encode()).hexdigest()[:16],
                "label": endpoint.label,
                "limit": endpoint.limit,
                "provider": endpoint.provider,
                "local": endpoint.local,
            }
    return records


def endpoint_from_record(record: Mapping[str, Any]) -> Endpoint:
    label = str(record["label"])
    return Endpoint(
        key=f"recorded:{record['key']}",
        label=label,
        limit=int(record["limit"]),
        provider=str(record.get("provider", "")),
        url=f"http://{label}" if record.get("local") else None,
    )


class Player(NoTape):
    """A recording loaded for a replay: the ports that answer from it, and its misses (the
    ports handed in from the recording itself pass through, as ``NoTape``'s do)."""

    replaying = True

    def begin(self, *, gateway: Gateway, **_: Any) -> None:
        """The replay starts: the recorded run's fence boundary, so every prompt (and so
        every reply's key) is the recorded one."""
        gateway.boundary = str(self.manifest.get("boundary", gateway.boundary))

    def waited(self) -> None:
        pass

    def cut(self, what: str) -> None:
        pass

    def answered(self, pause: str, kind: str, answer: Any) -> None:
        pass

    def finish(self, document: BaseModel) -> None:
        pass

    def __init__(self, tape: Tape) -> None:
        self.tape = tape
        self.manifest = tape.manifest()
        self.misses: list[str] = []
        #: what the run's fan-out told of a provider failing while others answered
        self.on_search_failure: OnFailure | None = None
        self._replies: dict[str, list[dict[str, Any]]] = {}
        for entry in tape.entries("replies"):
            self._replies.setdefault(entry["key"], []).append(entry)
        self._served: dict[str, int] = {}
        # one cache for every part of a replay that paused: the recorded run's resumed
        # part found in its cache what its first part stored there
        self._cache = ReplayCache({entry["key"]: entry["reply"] for entry in tape.entries("cache")})
        #: the answers the recorded run resumed with, in order (``replay.answers``)
        self.answers = recorded_answers(tape)
        self._parents = recorded_parents(tape)
        self._searches = {entry["key"]: entry for entry in tape.entries("searches")}
        self._pages = {entry["url"]: entry for entry in tape.entries("pages")}
        self._images = {entry["url"]: entry for entry in tape.entries("images")}
        self._clock = [datetime.fromisoformat(entry["at"]) for entry in tape.entries("clock")]
        self._ticks = 0
        # the budget's decisions at each point, in the order they were made there
        self._decisions: dict[str, list[dict[str, Any]]] = {}
        for entry in tape.entries("budget"):
            self._decisions.setdefault(str(entry["at"]), []).append(entry)
        self._decided: dict[str, int] = {}

    # what a replay asks ----------------------------------------------------------------
    def reply(self, model: str, messages: Sequence[BaseMessage]) -> AIMessage:
        key = reply_key(model, messages)
        replies = self._replies.get(key)
        if not replies:
            last = str(messages[-1].content)[:80] if messages else ""
            raise self.miss(f"reply from {model} for the prompt beginning {last!r}")
        # the same request asked again gets the recorded replies in turn, then the last
        served = self._served.get(key, 0)
        self._served[key] = served + 1
        entry = replies[min(served, len(replies) - 1)]
        if "failure" in entry:
            raise failure_from(entry["failure"])
        (message,) = messages_from_dict([entry["reply"]])
        assert isinstance(message, AIMessage)
        return message

    def results(self, provider: str, query: str, limit: int) -> list[SearchHit]:
        entry = self._searches.get(search_key(provider, query, limit))
        if entry is None:
            raise self.miss(f"search results from {provider} for {query!r}")
        if "error" in entry:
            _raise_recorded(entry, ProviderError)
        for failure in entry.get("failures", []):
            error = ProviderError(failure["message"], provider=failure["provider"])
            if self.on_search_failure is not None:
                self.on_search_failure(error)
        return [SearchHit.model_validate(hit) for hit in entry["hits"]]

    def page(self, url: str) -> FetchedPage:
        entry = self._pages.get(url)
        if entry is None:
            raise self.miss(f"page {url}")
        return _page_from(entry)

    def image(self, url: str) -> FetchedPage:
        entry = self._images.get(url)
        if entry is None:
            raise self.miss(f"image {url}")
        return _page_from(entry)

    def now(self) -> datetime:
        if not self._clock:
            raise self.miss("time read from the clock")
        moment = self._clock[min(self._ticks, len(self._clock) - 1)]
        self._ticks += 1
        return moment

    def decision(self, at: str) -> Verdict | None:
        """The budget decision the recorded run made at ``at`` (the same point asked again
        gets the next one made there); None, and a miss, past the last."""
        made = self._decisions.get(at, [])
        served = self._decided.get(at, 0)
        if served >= len(made):
            what = "a model call" if at.startswith("call ") else repr(at[:100])
            self.miss(f"budget decision for {what}")
            return None
        self._decided[at] = served + 1
        entry = made[served]
        return Verdict(entry.get("over"), str(entry.get("message", "")), entry.get("spend", {}))

    def budget(self, guard: BudgetGuard, gateway: Gateway) -> None:
        """``guard`` decides as the recorded run's did (a run under a budget)."""
        if guard.limits.any:
            guard.recorded = self.decision

    def miss(self, what: str) -> ReplayMiss:
        self.misses.append(what)
        return ReplayMiss(f"this run's recording has no {what}")

    # the ports -------------------------------------------------------------------------
    def models(self) -> dict[str, BaseChatModel | None]:
        names: Mapping[str, str] = self.manifest.get("models", {})
        return {
            role: None if name == "none" else ReplayChatModel(name, self)
            for role, name in names.items()
        }

    def recorded_endpoints(self) -> dict[Role, Endpoint] | None:
        """The recorded run's endpoints by role (None from a recording made before they
        were kept): a replay shares and limits its calls' slots as the run did, so a stage
        that sizes its work by them (the audit's batches) asks the recorded prompts."""
        records: Mapping[str, Mapping[str, Any]] | None = self.manifest.get("endpoints")
        if records is None:
            return None
        return {role: endpoint_from_record(records[role]) for role in ROLES if role in records}

    def search_provider(self) -> SearchProvider:
        search = self.manifest.get("search", {})
        return ReplaySearch(str(search.get("name", "")), bool(search.get("operators")), self)

    def replay_fetcher(self) -> Fetcher:
        return ReplayFetcher(self)

    # the ``RunTape`` protocol: the given ports are this recording's own (``models``,
    # ``search_provider``, ``replay_fetcher``, handed in by ``compose.replay``), the rest
    # are answered from the recording
    def search_failures(self, on_failure: OnFailure) -> OnFailure:
        """The recorded failures, told again as the run told them."""
        self.on_search_failure = on_failure
        return on_failure

    def endpoints(self, endpoints: Mapping[Role, Endpoint]) -> Mapping[Role, Endpoint]:
        return self.recorded_endpoints() or endpoints

    def council(self, build: CouncilBuilder) -> dict[str, BaseChatModel | None]:
        specs: Sequence[str] = self.manifest.get("council_models", [])
        return {spec: ReplayChatModel(spec, self) for spec in specs}

    def cache(self, cache: ResponseCache) -> ResponseCache:
        return self._cache

    def images(self, images: ImageFetcher | None) -> ImageFetcher | None:
        """The recorded images; none for a recording made before figures were kept
        (its settings have no ``images``), so its replay shows none, as its run did."""
        return ReplayImages(self) if "images" in self.manifest.get("settings", {}) else None

    def threads(self, stored: Callable[[], ThreadStore]) -> ThreadStore | None:
        return ReplayThreads(self._parents, self.miss)

    def library(self, shelf: Callable[[], Shelf]) -> Shelf | None:
        """What the library offered the recorded run; a recording from before the library
        was kept on tape ran without one, and so does its replay."""
        if "library" not in self.manifest.get("holds", []):
            return None
        return ReplayShelf(self.tape, self.miss)

    def clock(self, clock: Callable[[], datetime]) -> Callable[[], datetime]:
        return self.now
