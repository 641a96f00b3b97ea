"""Used by test_names_detached.sh: a process of the calling user (run as
uid 65534) in OUR mount namespace that maps files from a tmpfs mounted
nowhere: a user namespace of its own makes it with fsopen/fsmount and hands
the mount over as a descriptor, so the kernel names each mapping with the
path the user chose inside it.  It maps sys.argv[1]'s bytes at
usr/lib/x86_64-linux-gnu/libcrypto.so.3, then unlinks it (the kernel marks
the name " (deleted)"), and at usr/lib/x86_64-linux-gnu/libgcc_s.so.1
(deleted), never unlinked (a name that only ends like the mark).  Prints
"ready PID", or "skip WHY" where the kernel has no fsmount; holds until its
standard input ends."""
import ctypes
import os
import socket
import sys

SYS_FSOPEN, SYS_FSCONFIG, SYS_FSMOUNT = 430, 431, 432
FSCONFIG_CMD_CREATE = 6

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]


def syscall(*args):
    r = libc.syscall(*args)
    if r < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return r


def detached_tmpfs(sock):
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(0x10000000 | 0x00020000) != 0:  # CLONE_NEWUSER | CLONE_NEWNS
        raise OSError(ctypes.get_errno(), "unshare")
    with open("/proc/self/setgroups", "w") as f:
        f.write("deny")
    with open("/proc/self/uid_map", "w") as f:
        f.write("0 %d 1" % uid)
    with open("/proc/self/gid_map", "w") as f:
        f.write("0 %d 1" % gid)
    fs = syscall(SYS_FSOPEN, b"tmpfs", 1)
    syscall(SYS_FSCONFIG, fs, FSCONFIG_CMD_CREATE, None, None, 0)
    socket.send_fds(sock, [b"x"], [syscall(SYS_FSMOUNT, fs, 1, 0)])


def main():
    parent, child = socket.socketpair()
    pid = os.fork()
    if pid == 0:
        try:
            detached_tmpfs(child)
        except OSError as e:
            child.send(b"E" + str(e).encode())
            os._exit(1)
        os._exit(0)
    msg, fds, _, _ = socket.recv_fds(parent, 256, 1)
    os.waitpid(pid, 0)
    if not fds:
        print("skip no detached mount here: %s" % msg[1:].decode(errors="replace"), flush=True)
        return
    lib = "/proc/self/fd/%d/usr/lib/x86_64-linux-gnu" % fds[0]
    os.makedirs(lib)
    code = open(sys.argv[1], "rb").read()
    for name in ("libcrypto.so.3", "libgcc_s.so.1 (deleted)"):
        with open(lib + "/" + name, "wb") as f:
            f.write(code)
        fd = os.open(lib + "/" + name, os.O_RDONLY)
        if not libc.mmap(None, len(code), 5, 2, fd, 0):  # PROT_READ | PROT_EXEC, MAP_PRIVATE
            raise OSError(ctypes.get_errno(), "mmap")
        os.close(fd)
    os.unlink(lib + "/libcrypto.so.3")
    print("ready %d" % os.getpid(), flush=True)
    sys.stdin.read()


main()
