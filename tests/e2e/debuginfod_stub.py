#!/usr/bin/env python3
"""A stand-in debuginfod server on 127.0.0.1 for the explorer's tests.

Usage: debuginfod_stub.py MODE PORTFILE LOGFILE
Writes the port it listens on to PORTFILE, and the request line of every
connection to LOGFILE.  MODE "404" answers Not Found at once; MODE "slow"
promises a large file, sends a little of it, waits three seconds and hangs
up, so that a client shows its progress meanwhile.
"""
import os
import socket
import sys
import time


def main():
    mode, portfile, logfile = sys.argv[1:4]
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    with open(portfile + ".tmp", "w") as f:
        f.write(str(srv.getsockname()[1]))
    os.rename(portfile + ".tmp", portfile)
    while True:
        conn, _ = srv.accept()
        conn.settimeout(5)
        try:
            request = conn.recv(4096)
        except OSError:
            request = b""
        with open(logfile, "a") as f:
            f.write(request.split(b"\r\n")[0].decode("ascii", "replace") + "\n")
        try:
            if mode == "slow":
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1048576\r\n\r\n" + b"\0" * 65536)
                time.sleep(3)
            else:
                conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
        except OSError:
            pass
        conn.close()


if __name__ == "__main__":
    main()
