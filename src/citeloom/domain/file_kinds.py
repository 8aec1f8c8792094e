"""What a path is when it is not a regular file, in words a user recognises.

Reading a named pipe waits for a writer that may never come, a device such as /dev/zero never
ends, and writing over a link replaces the link: so ingest refuses such a path before it
reads it and export before it writes, and both say what the path is.
"""

from __future__ import annotations

import stat

KINDS = (
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def kind_of(mode: int) -> str | None:
    """What a file of this ``st_mode`` is, or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in KINDS if test(mode)), "not a regular file")
