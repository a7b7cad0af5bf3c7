"""Memory whose pages arrive only when another Python thread supplies
them (Linux's userfaultfd): a call that reads it finishes only if that
thread gets the GIL meanwhile. So a call that releases the GIL while it
reads finishes with the data's result, whatever the scheduler does, and one
that holds the GIL never finishes: a handshake, where counting another
thread's progress would be a race with the machine's load.

Used by conftest.released_gil, in a fresh Python that is killed if it
hangs."""

import ctypes
import errno
import fcntl
import mmap
import os
import platform
import struct
import sys
import threading

# userfaultfd(2) by architecture; ioctl numbers as <linux/userfaultfd.h>
# builds them (_IOWR(0xAA, nr, struct)) on these architectures.
SYSCALL = {"x86_64": 323, "aarch64": 282, "riscv64": 282, "loongarch64": 282}
UFFD_USER_MODE_ONLY = 1
UFFD_API = 0xAA
UFFDIO_API = 0xC018AA3F  # struct uffdio_api: api, features, ioctls
UFFDIO_REGISTER = 0xC020AA00  # struct uffdio_register: start, len, mode, ioctls
UFFDIO_COPY = 0xC028AA03  # struct uffdio_copy: dst, src, len, mode, copy
UFFDIO_REGISTER_MODE_MISSING = 1
UFFD_EVENT_PAGEFAULT = 0x12
MESSAGE = 32  # sizeof(struct uffd_msg)


def userfaultfd() -> int:
    """A new userfaultfd descriptor; OSError where the kernel or its
    settings give none (then the caller skips)."""
    if not sys.platform.startswith("linux"):
        raise OSError(f"userfaultfd is Linux's, not {sys.platform}'s")
    number = SYSCALL.get(platform.machine())
    if number is None:
        raise OSError(f"no userfaultfd syscall number for {platform.machine()}")
    libc = ctypes.CDLL(None, use_errno=True)
    # User-mode faults only: what an unprivileged process may ask for
    # (Linux 5.11 and later); a privileged one may ask for all.
    for flags in (os.O_CLOEXEC | UFFD_USER_MODE_ONLY, os.O_CLOEXEC):
        fd = libc.syscall(number, flags)
        if fd >= 0:
            return fd
    err = ctypes.get_errno()
    raise OSError(err, f"userfaultfd: {os.strerror(err)}")


class MissingPages:
    """``view``: a buffer holding ``data`` whose pages are absent until
    the first read of any of them, which waits for this object's thread, a
    Python thread, to fill them all. ``supplied`` is set once it has."""

    def __init__(self, data: bytes):
        self.fd = userfaultfd()
        fcntl.ioctl(self.fd, UFFDIO_API, bytearray(struct.pack("QQQ", UFFD_API, 0, 0)))
        page = mmap.PAGESIZE
        self.size = max(page, -(-len(data) // page) * page)
        self.map = mmap.mmap(-1, self.size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        # The mapping's address; from_buffer reads no byte of it.
        self.address = ctypes.addressof(ctypes.c_char.from_buffer(self.map))
        register = struct.pack("QQQQ", self.address, self.size, UFFDIO_REGISTER_MODE_MISSING, 0)
        fcntl.ioctl(self.fd, UFFDIO_REGISTER, bytearray(register))
        self.source = ctypes.create_string_buffer(data, self.size)
        self.view = memoryview(self.map)[: len(data)]
        self.supplied = threading.Event()
        threading.Thread(target=self._supply, daemon=True).start()

    def _supply(self):
        # Waits, without the GIL, for a reader to touch the memory...
        message = os.read(self.fd, MESSAGE)
        # ...and from here on runs Python code, which needs the GIL: the
        # reader, blocked in the fault, holds it or has let it go.
        assert message[0] == UFFD_EVENT_PAGEFAULT, message
        done = 0
        while done < self.size:
            copy = bytearray(
                struct.pack("QQQQq", self.address + done, ctypes.addressof(self.source) + done, self.size - done, 0, 0)
            )
            try:
                fcntl.ioctl(self.fd, UFFDIO_COPY, copy)
            except BlockingIOError:
                pass  # EAGAIN: part copied, as the struct says; go on
            copied = struct.unpack_from("q", copy, 32)[0]
            if copied < 0 and copied != -errno.EAGAIN:
                raise OSError(-copied, f"UFFDIO_COPY: {os.strerror(-copied)}")
            done += max(copied, 0)
        self.supplied.set()
