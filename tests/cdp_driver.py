"""A minimal Chrome DevTools Protocol driver over ``--remote-debugging-pipe`` (standard library).

Used by the packet's browser test (tests/test_label_audit_browser.py) and by
tools/audit_screenshots.py. Chromium reads NUL-terminated JSON commands on file descriptor 3 and
writes NUL-terminated JSON replies and events on descriptor 4; one page target is attached with
a flat session. Not a general driver: just what the tests need (navigate, evaluate, key events,
file inputs, downloads, screenshots), every call with a timeout.
"""

import base64
import json
import os
import select
import shutil
import subprocess
import time
from typing import Any, Dict, List, Optional

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--remote-debugging-pipe", "--hide-scrollbars", "--mute-audio")


def find_chromium() -> Optional[str]:
    """The Chromium binary: $NCLUE_CHROMIUM, else ``chromium`` / ``chromium-browser`` on PATH."""
    explicit = os.environ.get("NCLUE_CHROMIUM")
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


class CdpError(RuntimeError):
    pass


class Browser:
    """One headless Chromium with a fresh profile and one attached page."""

    def __init__(self, binary: str, profile: str, width: int = 1280, height: int = 900,
                 timeout: float = 30.0) -> None:
        import fcntl  # POSIX only; imported here so that the module loads anywhere
        self.timeout = timeout
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        # keep the pipe ends above 4 so that dup2 onto 3 and 4 cannot clobber them
        hi = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (to_child_r, from_child_w)]
        for fd in (to_child_r, from_child_w):
            os.close(fd)

        def child_fds() -> None:  # runs in the child before exec
            os.dup2(hi[0], 3)
            os.dup2(hi[1], 4)

        self.proc = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}",
             "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            close_fds=False, preexec_fn=child_fds)
        for fd in hi:
            os.close(fd)
        self._out = to_child_w
        self._in = from_child_r
        self._buffer = b""
        self._next_id = 0
        self.events: List[Dict[str, Any]] = []
        self.session = None
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"],
                                 flatten=True, session=False)["sessionId"]
        for domain in ("Page", "Runtime", "DOM"):
            self.call(f"{domain}.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    # -- transport ---------------------------------------------------------------------------

    def _send(self, message: Dict[str, Any]) -> None:
        os.write(self._out, json.dumps(message).encode("utf-8") + b"\0")

    def _read_message(self, deadline: float) -> Dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CdpError("timed out waiting for Chromium")
            ready, _, _ = select.select([self._in], [], [], left)
            if ready:
                chunk = os.read(self._in, 1 << 20)
                if not chunk:
                    raise CdpError("Chromium closed the debugging pipe")
                self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw.decode("utf-8"))

    def call(self, method: str, session: bool = True, **params: Any) -> Dict[str, Any]:
        self._next_id += 1
        message: Dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session and self.session:
            message["sessionId"] = self.session
        self._send(message)
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise CdpError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method: str, timeout: Optional[float] = None) -> Dict[str, Any]:
        deadline = time.monotonic() + (timeout or self.timeout)
        for i, event in enumerate(self.events):
            if event.get("method") == method:
                return self.events.pop(i)
        while True:
            event = self._read_message(deadline)
            if event.get("method") == method:
                return event
            self.events.append(event)

    # -- tabs --------------------------------------------------------------------------------

    def new_tab(self, width: int = 1280, height: int = 900) -> str:
        """Open another page in the same browser context (so the same localStorage) and return its
        session id; :meth:`switch` makes it the page the helpers drive."""
        target = self.call("Target.createTarget", session=False, url="about:blank")["targetId"]
        session = self.call("Target.attachToTarget", session=False, targetId=target, flatten=True)["sessionId"]
        previous, self.session = self.session, session
        try:
            for domain in ("Page", "Runtime", "DOM"):
                self.call(f"{domain}.enable")
            self.call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                      deviceScaleFactor=1, mobile=False)
        finally:
            self.session = previous
        return session

    def switch(self, session: str) -> str:
        """Drive the page of ``session``; returns the session driven before."""
        previous, self.session = self.session, session
        return previous

    # -- page helpers ------------------------------------------------------------------------

    def evaluate(self, expression: str) -> Any:
        """Value of a JavaScript expression (promises awaited); page exceptions raise."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                           awaitPromise=True)
        if "exceptionDetails" in result:
            raise CdpError(f"page exception: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: Optional[float] = None) -> Any:
        deadline = time.monotonic() + (timeout or self.timeout)
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.05)
        raise CdpError(f"timed out waiting for {expression}")

    def navigate(self, url: str) -> None:
        self.call("Page.navigate", url=url)
        self.wait_for("document.readyState === 'complete' && document.body && "
                      "document.body.getAttribute('data-ready') === '1'")

    def open_page(self, url: str) -> None:
        """Navigate to a static page (no script of its own) and wait until it has loaded."""
        self.call("Page.navigate", url=url)
        self.wait_for(f"document.readyState === 'complete' && location.href === {json.dumps(url)}")

    def reload(self) -> None:
        self.evaluate("document.body.removeAttribute('data-ready'), 1")
        self.call("Page.reload", ignoreCache=True)
        self.wait_for("document.readyState === 'complete' && document.body && "
                      "document.body.getAttribute('data-ready') === '1'")

    def key(self, key: str, code: str, key_code: int, modifiers: int = 0) -> None:
        """A real key press (keyDown + keyUp) delivered to the focused element."""
        for kind in ("keyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", type=kind, key=key, code=code,
                      windowsVirtualKeyCode=key_code, nativeVirtualKeyCode=key_code,
                      modifiers=modifiers)

    def type_text(self, text: str) -> None:
        self.call("Input.insertText", text=text)

    def set_file_input(self, selector: str, path: str) -> None:
        document = self.call("DOM.getDocument")
        node = self.call("DOM.querySelector", nodeId=document["root"]["nodeId"], selector=selector)
        self.call("DOM.setFileInputFiles", files=[path], nodeId=node["nodeId"])

    def allow_downloads(self, folder: str) -> None:
        self.call("Browser.setDownloadBehavior", session=False, behavior="allow",
                  downloadPath=folder, eventsEnabled=True)

    def screenshot(self, path: str, full_page: bool = False) -> None:
        params: Dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
        data = self.call("Page.captureScreenshot", **params)["data"]
        with open(path, "wb") as handle:
            handle.write(base64.b64decode(data))

    def close(self) -> None:
        try:
            self.call("Browser.close", session=False)
        except (CdpError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        for fd in (self._out, self._in):
            try:
                os.close(fd)
            except OSError:
                pass

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def need_browser(test):
    """Class decorator of the browser tests: skipped, saying so, where no Chromium is found and
    this is not CI (``CI=true``: ``.ci/run`` installs Chromium, and a missing one fails there)."""
    import unittest
    if find_chromium() is None and os.environ.get("CI", "").lower() != "true":
        message = ("SKIPPED browser test: no Chromium found (apt-get install -y chromium, or set "
                   "NCLUE_CHROMIUM); .ci/run installs it and fails when it is missing")
        print(f"\n{message}")
        return unittest.skip(message)(test)
    return test
