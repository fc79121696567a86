#!/usr/bin/python3
"""The power-cut bench's hands inside the VM (installed as /usr/local/sbin/powercut-agent).

``agent``: runs the shell commands the host sends over the virtio-serial port
``powercut.agent``, one JSON object a line each way: ``{"id": n, "sh": ..., "timeout": s}`` in,
``{"id": n, "rc": n, "out": text}`` back (the id lets the host skip answers to requests it
gave up on). It runs as root, before and beside the device's unit.

``acks``: reads the device's acknowledgement FIFO ($COMPANION_ACK_PIPE, one journal size a line),
marks each in the block log when the state disk sits on dm-log-writes (``dmsetup message``; the
device's sandbox could not), and forwards it to the host on the port ``powercut.acks``.

Only the Python standard library: it runs on the guest's own python3, outside the device's venv.
"""

import json
import os
import stat
import subprocess
import sys
import time

PORTS = "/dev/virtio-ports"
FIFO = "/run/powercut/acks"
LOG_DEVICE = "logw"


def open_port(name: str) -> int:
    """The port's file descriptor, read and write (a character device: no buffered text file,
    which would want to seek)."""
    path = os.path.join(PORTS, name)
    while not os.path.exists(path):
        time.sleep(0.1)
    return os.open(path, os.O_RDWR)


def lines(fd: int):
    """The port's lines as the host sends them; while no host is connected, reads return nothing."""
    pending = b""
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            time.sleep(0.2)
            continue
        pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            yield line


def write_all(fd: int, data: bytes) -> None:
    while data:
        data = data[os.write(fd, data):]


def agent() -> None:
    port = open_port("powercut.agent")
    for line in lines(port):
        try:
            request = json.loads(line)
        except ValueError:
            continue
        try:
            done = subprocess.run(["/bin/bash", "-c", request["sh"]], stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                  timeout=request.get("timeout", 120), check=False)
            reply = {"rc": done.returncode, "out": done.stdout.decode("utf-8", "replace")}
        except subprocess.TimeoutExpired as err:
            reply = {"rc": -1, "out": f"timed out after {err.timeout} s"}
        reply["id"] = request.get("id")
        write_all(port, (json.dumps(reply) + "\n").encode())


def acks() -> None:
    os.makedirs(os.path.dirname(FIFO), exist_ok=True)
    if not (os.path.exists(FIFO) and stat.S_ISFIFO(os.stat(FIFO).st_mode)):
        os.mkfifo(FIFO)
    os.chmod(FIFO, 0o622)
    host = open_port("powercut.acks")
    while True:
        with open(FIFO, encoding="ascii") as pipe:  # blocks until the device opens it
            for line in pipe:
                size = line.strip()
                if os.path.exists(f"/dev/mapper/{LOG_DEVICE}"):
                    subprocess.run(["dmsetup", "message", LOG_DEVICE, "0", "mark", f"ack:{size}"], check=False)
                write_all(host, f"ack {size}\n".encode())


if __name__ == "__main__":
    {"agent": agent, "acks": acks}[sys.argv[1]]()
