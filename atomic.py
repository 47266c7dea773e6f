"""Atomic writes: every file and tree ``hybridize`` writes goes through here (``hybridize.atomic``).

A process killed (even by SIGKILL) or a disk that fills up at any moment of a write leaves each
final path holding either its old content or the complete new content, never a truncated file
and never a half-written tree. How:

* **A file** (:func:`write_bytes`, :func:`write_text`, :func:`open_for_write`): the new content is
  written to a hidden temporary file in the *same directory* (``.<name>.hy-<pid>-<random>.tmp``),
  flushed and ``fsync``-ed, then renamed over the final path with ``os.replace`` (atomic on POSIX
  and on Windows within one volume); the directory is ``fsync``-ed after the rename so that the new
  name survives a power cut too.
* **A tree** (:class:`StagedTree`): the new tree is built in a hidden sibling directory of the final
  path, every file and directory in it is ``fsync``-ed, then it takes the final path's place:
  by ``rename`` when nothing is there, and when an old tree (or file) is there by one atomic
  exchange of the two names (Linux ``renameat2(RENAME_EXCHANGE)``) after which the old tree, now
  under the hidden name, is deleted. Where the exchange is not available (other systems, a file
  system that refuses it) the old tree is first renamed aside and the new one renamed in: a kill
  between those two renames leaves the final path *absent* for that moment, with the complete old
  tree kept beside it as ``.<name>.hy-<pid>-<random>.old``; the next write of the same path puts
  it back before it starts (so a path is never lost, only briefly missing). The exact guarantee is
  therefore: on Linux (ext4, xfs, btrfs, tmpfs, overlayfs), old or new at every instant; elsewhere,
  old or new or (after a kill in a window of two renames) absent-with-the-old-tree-beside-it,
  repaired by the next write.

Permissions: a new file gets what ``open(path, "w")`` would give it (``0o666`` minus the umask; the
temporary file is created with ``os.open(..., 0o666)`` so the kernel applies the umask, unlike
``tempfile.mkstemp``'s ``0o600``); a file that replaces an existing one keeps the old file's mode
(``--fix`` must not change a source file's mode). New directories get ``0o777`` minus the umask.
A symbolic link at the final path of a file is written through (its target is replaced).

SIGTERM: the commands (``hybridize ...``, ``hybridize-check``) call :func:`discard_on_sigterm` first, so
a SIGTERM (``kill``, a CI timeout, systemd stopping a job) raises ``SystemExit(143)`` in the main thread:
the writes under way discard their temporaries and staging directories on the way out, and the
process exits with the status a default SIGTERM gives (143 = 128 + 15). SIGKILL cannot be caught:
its leftovers are swept as below.

* **A set of files and trees in one directory** (:func:`commit_all`, ``hybridize transpile A B -o
  OUT``): every member is staged first (as above), then a journal ``.commit.hy-<pid>-<hex>.journal``
  naming each member's final path, staging name and identity (device and inode of the staged file
  or tree) is written atomically beside them: that write is the commit point. The members are then
  swapped in one by one, the old ones removed, and the journal deleted. A kill before the journal
  exists leaves every final path old (the staging leftovers are swept); a kill after it is completed
  by the next write into that directory (or :func:`recover`), which swaps in every member whose
  final path does not yet hold the journal's identity. So a reader after the next run sees the
  whole set old or the whole set new, never a mixture.

Leftovers of a killed writer (hidden ``.hy-<pid>-`` temporaries whose process is gone) are removed
by the next write into the same directory. Temporary names never collide between processes, so
concurrent writers of one path each write a complete file or tree and the last rename wins.

This module depends on the standard library only, so both ``hybridize.runtime`` and
``hybridize.transpile`` use it without importing each other.
"""
from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import os
import secrets
import shutil
import stat
import sys
import time
from typing import IO, Iterator, Optional, Union

__all__ = ["write_bytes", "write_text", "open_for_write", "StagedFile", "StagedTree", "replace_tree",
           "commit_all", "recover", "discard_on_sigterm"]

PathLike = Union[str, "os.PathLike[str]"]

_TAG = ".hy-"                 # marks our temporaries: .<name>.hy-<pid>-<hex>.tmp / .old
_STALE_AFTER = 60.0           # seconds: a temporary of a dead process older than this is swept
_MAX_BASE = 120               # keep temporary names under NAME_MAX (255) whatever the final name


# -- names and small steps ---------------------------------------------------------------------
def _resolve(path: PathLike) -> str:
    """The path to replace: absolute, a symbolic link followed to its target (written through)."""
    path = os.path.abspath(os.fspath(path))
    if os.path.islink(path):
        path = os.path.realpath(path)
    return path


def _temp_name(final: str, suffix: str) -> str:
    folder, base = os.path.split(final)
    return os.path.join(folder, f".{base[:_MAX_BASE]}{_TAG}{os.getpid()}-{secrets.token_hex(4)}{suffix}")


def _fsync_dir(folder: str) -> None:
    """Makes a rename in ``folder`` durable; file systems that cannot fsync a directory are skipped."""
    if os.name != "posix":
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _create_file(final: str) -> tuple[int, str]:
    """A new temporary file beside ``final``, created ``0o666`` so the umask applies."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = _temp_name(final, ".tmp")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", final)  # pragma: no cover


def _keep_mode(final: str, tmp: str) -> None:
    """A replaced file keeps its permission bits (as ``open(path, 'w')`` would)."""
    try:
        st = os.stat(final)
    except OSError:
        return
    if stat.S_ISREG(st.st_mode):
        os.chmod(tmp, stat.S_IMODE(st.st_mode))


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def _sweep(folder: str, base: Optional[str] = None) -> None:
    """Removes temporaries left in ``folder`` by killed writers (never a live process's), after
    completing their interrupted set commits (whose staged members are such temporaries)."""
    recover(folder)
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    now = time.time()
    prefix = None if base is None else f".{base[:_MAX_BASE]}{_TAG}"
    for entry in entries:
        name = entry.name
        if not name.startswith(".") or _TAG not in name or not name.endswith((".tmp", ".old")):
            continue
        if prefix is not None and not name.startswith(prefix):
            continue
        try:
            pid = int(name.rsplit(_TAG, 1)[1].split("-", 1)[0])
            age = now - entry.stat(follow_symlinks=False).st_mtime
        except (ValueError, IndexError, OSError):
            continue
        if _pid_alive(pid) or age < _STALE_AFTER:
            continue
        if name.endswith(".old") and (base is None or not os.path.lexists(os.path.join(folder, base))):
            continue  # an old tree set aside while its path is absent: _restore_old puts it back
        _remove(entry.path)


def _remove(path: str) -> None:
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.unlink(path)
    except OSError:
        pass


# -- files ---------------------------------------------------------------------------------------
class StagedFile:
    """A file being written beside ``final``; :meth:`commit` makes it the final path's content.

    Use it as a context manager (commit on success, discard on an exception) or call
    :meth:`commit` / :meth:`discard` yourself. ``handle`` is a binary file object."""

    def __init__(self, final: PathLike):
        self.final = _resolve(final)
        folder = os.path.dirname(self.final)
        _sweep(folder, os.path.basename(self.final))
        fd, self.temp = _create_file(self.final)
        self.handle: IO[bytes] = os.fdopen(fd, "wb")
        self._done = False

    def write(self, data: bytes) -> int:
        return self.handle.write(data)

    def commit(self) -> None:
        if self._done:
            return
        try:
            self.handle.flush()
            os.fsync(self.handle.fileno())
            self.handle.close()
            _keep_mode(self.final, self.temp)
            os.replace(self.temp, self.final)
        except BaseException:
            self.discard()
            raise
        self._done = True
        _fsync_dir(os.path.dirname(self.final))

    def discard(self) -> None:
        if self._done:
            return
        self._done = True
        with contextlib.suppress(OSError):
            self.handle.close()
        with contextlib.suppress(OSError):
            os.unlink(self.temp)

    def __enter__(self) -> "StagedFile":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.discard()


@contextlib.contextmanager
def open_for_write(path: PathLike) -> Iterator[IO[bytes]]:
    """A binary file object whose content replaces ``path`` atomically when the block ends without
    an exception (``np.savez(f, ...)`` and other streaming writers)."""
    staged = StagedFile(path)
    try:
        yield staged.handle
    except BaseException:
        staged.discard()
        raise
    staged.commit()


def write_bytes(path: PathLike, data: bytes) -> None:
    """Replaces ``path``'s content with ``data`` atomically (see the module docstring)."""
    with StagedFile(path) as staged:
        staged.write(data)


def write_text(path: PathLike, text: str, encoding: str = "utf-8") -> None:
    """:func:`write_bytes` of ``text`` encoded; newlines are written exactly as given."""
    write_bytes(path, text.encode(encoding))


# -- trees ---------------------------------------------------------------------------------------
_RENAME_EXCHANGE = 2
_renameat2 = None
if sys.platform.startswith("linux"):
    try:
        _libc = ctypes.CDLL(None, use_errno=True)
        _renameat2 = getattr(_libc, "renameat2", None)
        if _renameat2 is not None:
            _renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
            _renameat2.restype = ctypes.c_int
    except (OSError, AttributeError):  # pragma: no cover - no libc symbol table
        _renameat2 = None


def _exchange(a: str, b: str) -> bool:
    """Atomically swaps the names ``a`` and ``b``; False where the system cannot."""
    if _renameat2 is None:
        return False
    at_cwd = -100  # AT_FDCWD
    if _renameat2(at_cwd, os.fsencode(a), at_cwd, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, getattr(errno, "ENOTSUP", errno.EOPNOTSUPP)):
        return False
    raise OSError(err, os.strerror(err), b)


def _restore_old(final: str) -> None:
    """Puts back an old tree set aside by a writer killed between its two renames (fallback path)."""
    if os.path.lexists(final):
        return
    folder, base = os.path.split(final)
    prefix = f".{base[:_MAX_BASE]}{_TAG}"
    try:
        olds = sorted((e for e in os.scandir(folder) if e.name.startswith(prefix) and e.name.endswith(".old")),
                      key=lambda e: e.stat(follow_symlinks=False).st_mtime)
    except OSError:
        return
    for entry in reversed(olds):
        try:
            pid = int(entry.name.rsplit(_TAG, 1)[1].split("-", 1)[0])
        except (ValueError, IndexError):
            continue
        if not _pid_alive(pid):
            with contextlib.suppress(OSError):
                os.rename(entry.path, final)
            return


def _fsync_tree(root: str) -> None:
    for dirpath, _dirnames, filenames in os.walk(root):
        for name in filenames:
            path = os.path.join(dirpath, name)
            if os.path.islink(path):
                continue
            fd = os.open(path, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        _fsync_dir(dirpath)


class StagedTree:
    """A directory tree built beside ``final`` that replaces it as a whole on :meth:`commit`.

    ``path`` is the staging directory; write into it with :meth:`write_bytes` / :meth:`write_text`
    / :meth:`copy_file` (relative paths) or any other way. A context manager commits on success and
    discards on an exception. See the module docstring for the exact guarantee."""

    def __init__(self, final: PathLike):
        self.final = os.path.abspath(os.fspath(final))
        folder, base = os.path.split(self.final)
        os.makedirs(folder, exist_ok=True)
        recover(folder)           # before putting an old tree back: a set commit may need the new one
        _restore_old(self.final)
        _sweep(folder, base)
        for _ in range(100):
            path = _temp_name(self.final, ".tmp")
            try:
                os.mkdir(path, 0o777)
                break
            except FileExistsError:
                continue
        self.path = path
        self._done = False

    def _dest(self, rel: str) -> str:
        dest = os.path.normpath(os.path.join(self.path, rel))
        if os.path.commonpath([dest, self.path]) != self.path or dest == self.path:
            raise ValueError(f"{rel!r} is not a path inside the tree")
        os.makedirs(os.path.dirname(dest), 0o777, exist_ok=True)
        return dest

    def write_bytes(self, rel: str, data: bytes) -> str:
        """Writes ``data`` at ``rel`` in the staged tree (created ``0o666`` minus the umask)."""
        dest = self._dest(rel)
        fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0), 0o666)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        return dest

    def write_text(self, rel: str, text: str, encoding: str = "utf-8") -> str:
        return self.write_bytes(rel, text.encode(encoding))

    def copy_file(self, src: PathLike, rel: str) -> str:
        """Copies ``src``'s bytes (not its mode: outputs get the umask's permissions); a regular file
        only, at most ``HYBRIDIZE_MAX_COPY_BYTES`` (default 1 GiB) bytes."""
        import errno

        from .readers import cap_from_env, open_regular

        cap = cap_from_env("HYBRIDIZE_MAX_COPY_BYTES", 1 << 30)
        dest = self._dest(rel)
        with open_regular(src) as fin:
            fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0), 0o666)
            with os.fdopen(fd, "wb") as fout:
                copied = 0
                for block in iter(lambda: fin.read(1 << 20), b""):
                    copied += len(block)
                    if copied > cap:
                        raise OSError(errno.EFBIG, f"{os.fspath(src)} is larger than {cap} bytes, the limit for a "
                                                   "copied file (set HYBRIDIZE_MAX_COPY_BYTES to allow more)")
                    fout.write(block)
        return dest

    def commit(self) -> None:
        """Makes the staged tree the final path's content (the old one is removed)."""
        if self._done:
            return
        try:
            _fsync_tree(self.path)
            self._swap()
        except BaseException:
            self.discard()
            raise
        self._done = True

    def _swap(self) -> None:
        folder = os.path.dirname(self.final)
        if not os.path.lexists(self.final):
            try:
                os.rename(self.path, self.final)
                _fsync_dir(folder)
                return
            except OSError as exc:  # another writer put something there meanwhile: exchange with it
                if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY, errno.ENOTDIR, errno.EISDIR):
                    raise
        if _exchange(self.path, self.final):
            _fsync_dir(folder)
            _remove(self.path)      # the old tree, now under the staging name
            return
        old = _temp_name(self.final, ".old")
        os.rename(self.final, old)
        try:
            os.rename(self.path, self.final)
        except BaseException:
            with contextlib.suppress(OSError):
                os.rename(old, self.final)
            raise
        _fsync_dir(folder)
        _remove(old)

    def discard(self) -> None:
        if self._done:
            return
        self._done = True
        _remove(self.path)

    def __enter__(self) -> "StagedTree":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.discard()


def replace_tree(final: PathLike) -> StagedTree:
    """``with replace_tree(out) as tree: tree.write_text("pkg/mod.py", code)`` (see :class:`StagedTree`)."""
    return StagedTree(final)


# -- sets: several files and trees of one directory, all old or all new ---------------------------
_JOURNAL_SUFFIX = ".journal"
_JOURNAL_CAP = 1 << 20


def _identity(path: str) -> Optional[tuple[int, int]]:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _is_ours(path: str) -> bool:
    name = os.path.basename(path)
    return name.startswith(".") and _TAG in name and name.endswith((".tmp", ".old"))


def _prepare(item: Union[StagedFile, StagedTree]) -> str:
    """Makes a staged member durable without committing it; its staging path."""
    if isinstance(item, StagedFile):
        item.handle.flush()
        os.fsync(item.handle.fileno())
        item.handle.close()
        _keep_mode(item.final, item.temp)
        return item.temp
    _fsync_tree(item.path)
    return item.path


def commit_all(items: "list[Union[StagedFile, StagedTree]]") -> None:
    """Commits staged files and trees whose final paths share one directory as a set (see the module
    docstring): after a kill at any moment, the next write into that directory (or :func:`recover`)
    leaves all of them old or all of them new. A failure before the commit point discards every
    member and changes no final path; after it, the commit is completed, or left for the next run
    to complete when even that fails (the error is raised)."""
    items = [item for item in items if not item._done]
    if len(items) <= 1:
        for item in items:
            item.commit()
        return
    folders = {os.path.dirname(item.final) for item in items}
    if len(folders) != 1:
        raise ValueError("commit_all: the final paths must share one directory")
    folder = folders.pop()
    try:
        targets = []
        for item in items:
            staged = _prepare(item)
            ident = _identity(staged)
            if ident is None:
                raise FileNotFoundError(errno.ENOENT, "staged output vanished", staged)
            targets.append({"final": os.path.basename(item.final), "staged": os.path.basename(staged),
                            "backup": os.path.basename(_temp_name(item.final, ".old")),
                            "dev": ident[0], "ino": ident[1]})
        journal = os.path.join(folder, f".commit{_TAG}{os.getpid()}-{secrets.token_hex(4)}{_JOURNAL_SUFFIX}")
        write_text(journal, json.dumps({"version": 1, "targets": targets}, indent=1))
    except BaseException:
        for item in items:
            item.discard()
        raise
    for item in items:          # past the commit point: the staged members belong to the journal
        item._done = True
    try:
        _complete(journal)
    except BaseException:       # SIGTERM's SystemExit or a failed rename: finish now if we can
        with contextlib.suppress(Exception):
            _complete(journal)
        raise


def _complete(journal: str) -> None:
    """Rolls a written journal forward: swaps in each member not yet in place, removes the old
    contents, deletes the journal. Idempotent, so it resumes wherever a killed writer stopped."""
    from .readers import read_capped

    folder = os.path.dirname(journal)
    try:
        targets = json.loads(read_capped(journal, _JOURNAL_CAP, "a commit journal"))["targets"]
        names = [(os.path.join(folder, os.path.basename(t["final"])),
                  os.path.join(folder, os.path.basename(t["staged"])),
                  os.path.join(folder, os.path.basename(t["backup"])),
                  (int(t["dev"]), int(t["ino"]))) for t in targets]
        if not all(_is_ours(staged) and _is_ours(backup) and os.path.basename(final) not in ("", ".", "..")
                   for final, staged, backup, _new in names):
            return              # a journal naming anything but our temporaries is never acted on
    except FileNotFoundError:
        return                  # completed meanwhile
    except (OSError, ValueError, KeyError, TypeError):
        return                  # not ours or damaged: never acted on
    for final, staged, backup, new in names:
        if _identity(final) == new or _identity(staged) != new:
            continue            # in place already (or taken away by another writer: nothing to do)
        if not os.path.lexists(final):
            os.rename(staged, final)
        elif not _exchange(staged, final):
            os.rename(final, backup)
            os.rename(staged, final)
    _fsync_dir(folder)
    for _final, staged, backup, new in names:
        for leftover in (staged, backup):
            ident = _identity(leftover)
            if ident is not None and ident != new:
                _remove(leftover)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(journal)
    _fsync_dir(folder)


def recover(folder: PathLike) -> None:
    """Completes the set commits in ``folder`` whose writer was killed (its journal is left and
    its process gone); a live writer's commit is left to it."""
    folder = os.path.abspath(os.fspath(folder))
    try:
        names = [e.name for e in os.scandir(folder) if e.name.endswith(_JOURNAL_SUFFIX) and _TAG in e.name]
    except OSError:
        return
    for name in sorted(names):
        try:
            pid = int(name.rsplit(_TAG, 1)[1].split("-", 1)[0])
        except (ValueError, IndexError):
            continue
        if not _pid_alive(pid):
            _complete(os.path.join(folder, name))


def discard_on_sigterm() -> None:
    """For a command's process: SIGTERM raises ``SystemExit(143)`` in the main thread instead of
    ending the process where it stands, so that staged writes under way remove their temporaries
    (their ``with`` blocks and ``commit``'s handler discard them). A second SIGTERM ends the process
    at once. Left alone when called off the main thread or when SIGTERM already has a handler."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return

    def terminate(signum: int, frame: object) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, terminate)
