"""The /v1/library/collections endpoints (issue 25): import your own documents as a named
collection (a multipart upload of .md, .txt, .html, .pdf and .docx files), list, rename
and remove collections. Bound to the caller's key like every library route: another
key's collection is a 404 exactly like one that does not exist. An upload is read into a
scratch folder by the same reader as ``deepresearch library import``
(``fetch/documents.py``) and stored in one transaction: a refused upload stores nothing."""

from __future__ import annotations

import tempfile
from pathlib import Path, PurePath
from typing import Annotated

from fastapi import APIRouter, File, Form, Request, Response, UploadFile
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from deepresearch.core.library_query import MAX_TAG_CHARS, normalize_collection
from deepresearch.errors import InvalidInput
from deepresearch.fetch.documents import (
    DOCUMENT_SUFFIXES,
    MAX_DOCUMENTS,
    MAX_FILE_BYTES,
    Folder,
    read_folder,
)
from deepresearch.models.library import CollectionSummary
from deepresearch.service.library_routes import PROBLEMS, CallerDep, library_call
from deepresearch.service.problems import ApiProblem

collections_router = APIRouter(prefix="/v1/library/collections", tags=["library"])
#: the most bytes one upload may hold, all files together
MAX_UPLOAD_BYTES = MAX_FILE_BYTES
_CHUNK = 1 << 16


class CollectionsView(BaseModel):
    collections: list[CollectionSummary]


class CollectionRename(BaseModel):
    model_config = ConfigDict(extra="forbid")
    to: str = Field(min_length=1, max_length=MAX_TAG_CHARS, description="its new name")


class CollectionRemoved(BaseModel):
    documents: int = Field(description="how many documents it held")


def _bad(message: str, hint: str = "") -> ApiProblem:
    return ApiProblem(400, message, kind="invalid-import", hint=hint)


async def _received(files: list[UploadFile]) -> dict[str, bytes]:
    """The uploads by base name; a problem for a file that is not a document, a name
    given twice, or more than ``MAX_UPLOAD_BYTES`` in all."""
    if len(files) > MAX_DOCUMENTS:
        raise _bad(f"at most {MAX_DOCUMENTS} files in one collection")
    received: dict[str, bytes] = {}
    total = 0
    for upload in files:
        name = PurePath(upload.filename or "").name
        if (
            not name
            or name.startswith(".")
            or PurePath(name).suffix.lower() not in DOCUMENT_SUFFIXES
        ):
            raise _bad(
                f"{name[:80]!r} is not a document this server reads",
                hint="upload .md, .txt, .html, .pdf or .docx files",
            )
        if name in received:
            raise _bad(f"the file name {name[:80]!r} is given twice", hint="rename one of them")
        chunks = []
        while chunk := await upload.read(_CHUNK):
            total += len(chunk)
            if total > MAX_UPLOAD_BYTES:
                raise ApiProblem(
                    413,
                    f"the upload is larger than {MAX_UPLOAD_BYTES // (1 << 20)} MB",
                    kind="too-large",
                    hint="import it in several collections",
                )
            chunks.append(chunk)
        received[name] = b"".join(chunks)
    return received


def _read(received: dict[str, bytes]) -> Folder:
    """The documents of the upload, read from a scratch folder by the reader of
    ``library import``; each at ``/NAME`` (its address ``file:///NAME``, an address a
    run reads like the local corpus's and never fetches: its text is stored)."""
    with tempfile.TemporaryDirectory(prefix="deepresearch-import-") as scratch:
        folder = Path(scratch).resolve()
        for name, data in received.items():
            (folder / name).write_bytes(data)
        try:
            found = read_folder(folder)
        except InvalidInput as exc:
            raise _bad(exc.message.replace(str(folder), "the upload"), exc.hint) from None
    return Folder(
        documents=[d.model_copy(update={"path": f"/{Path(d.path).name}"}) for d in found.documents],
        skipped=[Path(path).name for path in found.skipped],
    )


@collections_router.post(
    "",
    status_code=201,
    response_model=CollectionSummary,
    responses={**PROBLEMS, 413: PROBLEMS[400]},
    summary="Import documents as a collection",
)
async def create(
    request: Request,
    who: CallerDep,
    name: Annotated[str, Form(max_length=200, description="the collection's name")],
    files: Annotated[list[UploadFile], File(description=".md .txt .html .pdf .docx files")],
) -> CollectionSummary:
    """A multipart upload (``name`` and one or more ``files``) stored as your new
    collection, searchable at once with ``/v1/library/search`` (``collection=NAME``) and
    by runs with ``search: library``. ``skipped`` lists the files that could not be read;
    none readable, a taken or bad name: a 400, and nothing is stored."""
    try:
        checked = normalize_collection(name)
    except InvalidInput as exc:
        raise _bad(exc.message, exc.hint) from None
    found = await run_in_threadpool(_read, await _received(files))
    made = await library_call(
        request, lambda store: store.import_collection(who.owner, checked, found.documents)
    )
    return made.model_copy(update={"skipped": found.skipped})


@collections_router.get(
    "", response_model=CollectionsView, responses=PROBLEMS, summary="Your collections"
)
async def listed(request: Request, who: CallerDep) -> CollectionsView:
    """Your collections by name, with how many documents each holds."""
    return CollectionsView(
        collections=await library_call(request, lambda s: s.collections(who.owner))
    )


@collections_router.post(
    "/{name}/rename", status_code=204, responses=PROBLEMS, summary="Rename a collection"
)
async def rename(name: str, body: CollectionRename, request: Request, who: CallerDep) -> Response:
    await library_call(request, lambda store: store.rename_collection(who.owner, name, body.to))
    return Response(status_code=204)


@collections_router.delete(
    "/{name}", response_model=CollectionRemoved, responses=PROBLEMS, summary="Remove a collection"
)
async def remove(name: str, request: Request, who: CallerDep) -> CollectionRemoved:
    """The collection and its documents; search stops finding them at once."""
    documents = await library_call(request, lambda store: store.remove_collection(who.owner, name))
    return CollectionRemoved(documents=documents)
