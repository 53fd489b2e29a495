"""Files fcsim writes: checked before any work, written so a user's file is never destroyed.

Every output path (``--pcap``, ``--trace``, ``-o``, ``--report``, figure
folders) is checked with :func:`check_file` or :func:`check_folder` before a
simulation starts, so a path that cannot be written is refused at once in one
line (:class:`OutputError`) rather than with a traceback after the run.

:func:`open_output` then writes:

- a regular file, or a path that does not exist yet, through a temporary file
  in the same folder that replaces the target only when writing succeeded
  (an interrupted or failed run leaves the old file as it was and no
  temporary file behind);
- anything else that exists (a device such as ``/dev/null``, a FIFO, a
  terminal) directly, since replacing it would destroy it;
- through symbolic links: the link's target is written, the link stays.

A write that fails on the way (a full disk, a file past its size limit, a
device such as ``/dev/full``) raises :class:`WriteError`, one line naming the
output and the system's reason; the temporary file is removed, so nothing
half-written is left. :func:`guarded_stdout` makes standard output fail the
same way.

:class:`Capped` stops a text output at a size limit (``--trace-limit``).
"""

from __future__ import annotations

import io
import os
import stat
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any


class OutputError(Exception):
    """An output path that cannot be written; ``str()`` is one line naming the
    option, the path and why."""

    def __init__(self, option: str, path: str | os.PathLike[str], problem: str) -> None:
        super().__init__(f"{option}: cannot write {os.fspath(path)!r}: {problem}")


class WriteError(Exception):
    """Writing an output failed after it was opened (a full disk, a file past the
    size it may reach); ``str()`` is one line naming the output and why, as
    *what* (``"--pcap: cannot write 'x.pcap'"``) and *problem*."""

    def __init__(self, what: str, problem: str) -> None:
        super().__init__(f"{what}: {problem}")


class _Guarded(io.FileIO):
    """A file opened for writing whose failed writes raise :class:`WriteError`
    naming *what* it is, so that the buffered layers above it (which call it
    once per buffer, not once per write) report a full disk in one line. A
    reader that went away (``| head``) stays :class:`BrokenPipeError`."""

    def __init__(self, file: int | str, what: str, closefd: bool = True) -> None:
        super().__init__(file, "w", closefd=closefd)
        self.what = what

    def write(self, data: Any) -> int | None:
        """Write *data* (bytes) into the file; the bytes written."""
        try:
            return super().write(data)
        except BrokenPipeError:
            raise
        except OSError as error:
            raise WriteError(self.what, error.strerror or str(error)) from None


def _stream(raw: _Guarded, mode: str) -> IO[Any]:
    """*raw* buffered, and as UTF-8 text if *mode* is ``"w"``."""
    buffered = io.BufferedWriter(raw)
    return buffered if mode == "wb" else io.TextIOWrapper(buffered, encoding="utf-8")


def close_quietly(stream: IO[Any]) -> None:
    """Close *stream* after a failure, its file closed even if what it still
    holds cannot be written."""
    try:
        stream.close()
    except (WriteError, OSError):
        pass


def _resolved(path: str | os.PathLike[str]) -> Path:
    return Path(os.path.realpath(path))


def _special(path: str | os.PathLike[str]) -> bool:
    """True if *path* (links followed) exists and is neither a regular file nor a
    folder: a device, a FIFO, a socket, or a pipe or terminal reached through
    ``/dev/stdout`` (whose resolved name, ``/proc/PID/fd/pipe:[N]``, cannot be
    opened, so it is written by the name given)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _writable_folder(option: str, given: str | os.PathLike[str], folder: Path) -> None:
    """Raise unless a file can be created in *folder* (tried, so root, read-only
    mounts and pseudo file systems such as /proc all answer truly)."""
    if not folder.exists():
        raise OutputError(option, given, f"folder {str(folder)!r} does not exist")
    if not folder.is_dir():
        raise OutputError(option, given, f"{str(folder)!r} is not a folder")
    try:
        handle, probe = tempfile.mkstemp(dir=folder, prefix=".fcsim-probe.")
    except OSError as error:
        raise OutputError(option, given, f"folder {str(folder)!r} is not writable "
                                         f"({error.strerror})") from None
    os.close(handle)
    os.unlink(probe)


def check_file(option: str, path: str | os.PathLike[str]) -> Path:
    """The path an output file named *path* (for command-line *option*) will be
    written at, symbolic links followed; :class:`OutputError` if it cannot be."""
    if _special(path):
        if not os.access(path, os.W_OK):
            raise OutputError(option, path, "not writable")
        return Path(path)
    target = _resolved(path)
    if target.is_dir():
        raise OutputError(option, path, "it is a folder; give a file name")
    _writable_folder(option, path, target.parent)
    return target


def check_folder(option: str, path: str | os.PathLike[str],
                 files: tuple[str, ...] = ()) -> Path:
    """The folder *path* (for *option*) that output files will be written into,
    symbolic links followed; created later, with its missing parents, if
    absent. :class:`OutputError` if it or its nearest existing parent is not a
    folder that can be written, or if it exists and one of the *files* named
    in it cannot be written (:func:`check_file`)."""
    target = _resolved(path)
    if target.exists() and not target.is_dir():
        raise OutputError(option, path, "it exists and is not a folder")
    existing = target
    while not existing.exists():
        existing = existing.parent
    _writable_folder(option, path, existing)
    if existing == target:
        for name in files:
            check_file(option, target / name)
    return target


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """True if *a* and *b* name the same file (symbolic links followed)."""
    try:
        return os.path.samefile(a, b)
    except OSError:  # one does not exist yet
        return _resolved(a) == _resolved(b)


def is_stdout(path: str | os.PathLike[str]) -> bool:
    """True if *path* is the file standard output goes to (``/dev/stdout``, or the
    file or pipe it is redirected to)."""
    try:
        return os.path.samestat(os.stat(path), os.fstat(sys.stdout.fileno()))
    except (OSError, ValueError):  # no such file; standard output closed or replaced
        return False


def open_append(path: str | os.PathLike[str], what: str) -> IO[bytes]:
    """Open the existing file *path* for appending bytes, buffered; a write
    that fails raises :class:`WriteError` naming *what* (``"--pcap: cannot
    write 'x.pcap'"``), as :func:`open_output`'s files do."""
    return _stream(_Guarded(os.open(path, os.O_WRONLY | os.O_APPEND), what), "wb")


@contextmanager
def open_output(path: str | os.PathLike[str], mode: str = "wb",
                option: str = "output") -> Iterator[IO[Any]]:
    """Open the output file *path* (given with command-line *option*) for
    writing in *mode* (``"w"``, UTF-8 text, or ``"wb"``).

    A regular or new file is replaced only when the ``with`` block ends
    without an exception (or interruption) and everything is written; a
    device or FIFO is written directly; a symbolic link's target is written.
    A write that fails raises :class:`WriteError`.
    """
    what = f"{option}: cannot write {os.fspath(path)!r}"
    if _special(path):
        stream = _stream(_Guarded(os.fspath(path), what), mode)
        try:
            yield stream
            stream.close()
        except BaseException:
            close_quietly(stream)
            raise
        return
    target = _resolved(path)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.",
                                         suffix=".tmp")
    stream = _stream(_Guarded(handle, what), mode)
    try:
        yield stream
        stream.close()
        os.chmod(temporary, 0o644 & ~_umask())
        os.replace(temporary, target)
    except BaseException:
        close_quietly(stream)
        os.unlink(temporary)
        raise


@contextmanager
def guarded_stdout() -> Iterator[None]:
    """While the block runs, a write to standard output that fails raises
    :class:`WriteError` ("cannot write standard output: ..."); what is still
    buffered is written when the block ends, and if it cannot be, dropped
    (standard output then goes to /dev/null, so that the interpreter's own
    flush at exit does not fail again). A replaced ``sys.stdout`` (a test's
    capture) is left as it is."""
    original = sys.stdout
    try:
        number = original.fileno() if original is sys.__stdout__ else None
    except (AttributeError, OSError, ValueError):  # not a file (an embedding's stream)
        number = None
    if original is None or number is None:
        yield
        return
    original.flush()
    guarded = io.TextIOWrapper(
        io.BufferedWriter(_Guarded(number, "cannot write standard output", closefd=False)),
        encoding=original.encoding, errors=original.errors,
        line_buffering=original.line_buffering)
    sys.stdout = guarded
    try:
        yield
        guarded.flush()
    except BaseException:
        try:
            guarded.flush()
        except (WriteError, OSError):
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, number)
            os.close(null)
        raise
    finally:
        sys.stdout = original
        close_quietly(guarded)


def write_output(path: str | os.PathLike[str], data: bytes | str,
                 option: str = "output") -> None:
    """Write *data* (bytes, or text as UTF-8) to *path* (given with *option*) as
    :func:`open_output` does."""
    with open_output(path, "wb", option) as stream:
        stream.write(data.encode("utf-8") if isinstance(data, str) else data)


class Capped:
    """A text stream that takes whole writes until *limit* bytes (UTF-8) are
    written, then leaves out every later write, counting them in *left_out*
    (as ``tcpdump -C`` caps a file; a trace writes one line per call)."""

    def __init__(self, stream: IO[str], limit: int) -> None:
        self.stream, self.limit = stream, limit
        self.size = self.left_out = 0

    def write(self, text: str) -> int:
        """Write *text* unless it would pass the limit; the characters written."""
        size = len(text.encode("utf-8"))
        if self.left_out or self.size + size > self.limit:
            self.left_out += 1
            return 0
        self.size += size
        return self.stream.write(text)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
