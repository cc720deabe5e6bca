"""Zip-based formats (DOCX, ODT) made reproducible: ``fixed_dates`` rewrites an archive
with every entry dated by the document, not by the clock. Pure.

python-docx and odfpy stamp each entry with the time they write it, so the same report
saved a second apart (a run, then its replay) gave different bytes. Entries keep their
order, names, compression and attributes (ODT's ``mimetype`` stays first and stored);
extra fields, where a writer could hide another timestamp, are not copied.
"""

from __future__ import annotations

import io
import zipfile
from datetime import UTC, datetime

#: the earliest date a zip entry can carry
ZIP_EPOCH = datetime(1980, 1, 1, tzinfo=UTC)
#: a document's date when it has none of its own (its zip formats still date every entry)
EPOCH = datetime(2000, 1, 1, tzinfo=UTC)


def fixed_dates(data: bytes, when: datetime) -> bytes:
    """``data`` (a zip archive) with every entry dated ``when`` (as UTC, to the zip's
    two-second precision; before 1980 as 1980)."""
    stamp = max(when if when.tzinfo else when.replace(tzinfo=UTC), ZIP_EPOCH).astimezone(UTC)
    date_time = (stamp.year, stamp.month, stamp.day, stamp.hour, stamp.minute, stamp.second)
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            copy = zipfile.ZipInfo(info.filename, date_time)
            copy.compress_type = info.compress_type
            copy.external_attr = info.external_attr
            copy.create_system = info.create_system
            copy.comment = info.comment
            target.writestr(copy, source.read(info))
    return out.getvalue()
