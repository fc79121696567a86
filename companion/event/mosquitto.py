"""A private Eclipse Mosquitto on a loopback port, for the tests, the bench and a dry run on one PC.

It runs the Debian package's ``mosquitto`` binary with a generated config (loopback only, optional
persistence, optional password file and ACL), and can kill it with SIGKILL and start it again on the
same port and persistence file, as a crashed or power-cycled broker would come back.
"""

from __future__ import annotations

import getpass
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from types import TracebackType

BINARY_PATHS = ("/usr/sbin/mosquitto", "/usr/bin/mosquitto")


def mosquitto_binary() -> str | None:
    """The mosquitto executable, or None where it is not installed."""
    return shutil.which("mosquitto") or next((p for p in BINARY_PATHS if os.access(p, os.X_OK)), None)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def write_password_file(path: Path, accounts: dict[str, str]) -> None:
    """A mosquitto password file (hashed by ``mosquitto_passwd``) for ``{user: password}``."""
    tool = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
    path.write_text("")
    for user, password in accounts.items():
        subprocess.run([tool, "-b", str(path), user, password], check=True, capture_output=True, timeout=10)


def _documented_lines(config: Path, password_file: Path | None, acl_file: Path | None) -> list[str]:
    """The settings of a documented config file, without its listener and paths (the test's own)."""
    replaced = {"password_file": password_file, "acl_file": acl_file}
    kept = []
    for raw in config.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name = line.split()[0]
        if name in ("listener", "persistence", "persistence_location", "autosave_interval", "max_queued_messages"):
            continue  # the listener is the test's loopback port; persistence is the caller's choice
        if name in replaced:
            if replaced[name] is not None:
                kept.append(f"{name} {replaced[name]}")
            continue
        kept.append(line)
    return kept


class Mosquitto:
    """One broker process on ``127.0.0.1:port``; use as a context manager."""

    def __init__(
        self,
        directory: Path,
        *,
        persistence: bool = True,
        password_file: Path | None = None,
        acl_file: Path | None = None,
        tls: tuple[Path, Path, Path] | None = None,
        port: int | None = None,
        documented: Path | None = None,
    ) -> None:
        """``tls``: (CA certificate, broker certificate, broker key) makes the listener TLS only.

        ``documented``: run that config file (docs/mosquitto/companion-event.conf) as written, but
        for the listener (this port, loopback), the persistence folder and the given password
        file and ACL: what the docs tell an organiser to install is what the tests run.
        """
        binary = mosquitto_binary()
        if binary is None:
            raise FileNotFoundError("mosquitto is not installed (sudo apt install mosquitto)")
        self.binary = binary
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.persistence = persistence
        self.config = self.directory / "mosquitto.conf"
        self.log = self.directory / "mosquitto.log"
        lines = [
            f"listener {self.port} 127.0.0.1",
            f"user {getpass.getuser()}",  # started as root, mosquitto would switch to its own user
            f"persistence {'true' if persistence else 'false'}",
            f"persistence_location {self.directory}/",
            "autosave_interval 1",
            "sys_interval 1",  # the clients' count ($SYS) the scoreboard reads, fresh within a second
            "max_queued_messages 100000",
            "log_type error",
            "log_type warning",
            "log_type notice",
            f"log_dest file {self.log}",
        ]
        if documented is not None:
            lines = [lines[0], *_documented_lines(documented, password_file, acl_file), *lines[1:]]
        elif password_file is None:
            lines.append("allow_anonymous true")
        else:
            lines += ["allow_anonymous false", f"password_file {password_file}"]
        if acl_file is not None and documented is None:
            lines.append(f"acl_file {acl_file}")
        if tls is not None:
            lines += [f"cafile {tls[0]}", f"certfile {tls[1]}", f"keyfile {tls[2]}"]
        self.tls = tls is not None
        self.config.write_text("\n".join(lines) + "\n")
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://127.0.0.1:{self.port}"

    def start(self, timeout: float = 10.0) -> Mosquitto:
        self.process = subprocess.Popen([self.binary, "-c", str(self.config)], stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout
        while True:  # wait for the listener: mosquitto has no readiness notification of its own
            if self.process.poll() is not None:
                error = self.process.stderr.read().decode(errors="replace") if self.process.stderr else ""
                raise RuntimeError(f"mosquitto exited ({self.process.returncode}): {error or self.log_text()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"mosquitto did not listen on port {self.port} within {timeout} s") from None
                time.sleep(0.02)

    def kill(self) -> None:
        """SIGKILL: no goodbye, no save of the persistence file beyond its last autosave."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)
        self._close_pipes()

    def stop(self) -> None:
        """SIGTERM: mosquitto saves its persistence file and exits."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
        self._close_pipes()

    def restart(self, *, kill: bool = True) -> None:
        self.kill() if kill else self.stop()
        self.start()

    def log_text(self) -> str:
        try:
            return self.log.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def _close_pipes(self) -> None:
        if self.process is not None and self.process.stderr is not None:
            self.process.stderr.close()

    def __enter__(self) -> Mosquitto:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
