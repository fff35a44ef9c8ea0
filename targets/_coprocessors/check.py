#!/usr/bin/env python3
"""Checks one coprocessor folder against CONTRACT.md (beside this file).

    python3 targets/_coprocessors/check.py targets/coprocessor-go

Starts the folder's `[start].command` (from its target.toml, in the folder, with the port
variable set to a free port), waits for `GET /health`, runs every check of the contract,
then stops the process group (SIGTERM, then SIGKILL). Install the folder first (its
`[install].command`). Python standard library only. Exit 0 when every check passes, 1 with
the reasons otherwise (2 for a usage error).
"""
import base64
import copy
import hashlib
import hmac
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import tomllib

SECRET = os.environ.get("GQLBENCH_JWT_SECRET") or "apollo"
REJECT_BODY = {"errors": [{"message": "invalid token"}]}
UUID_V4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$", re.I)
ENDPOINTS = ["static-subgraph", "guid-response", "client-awareness"]


# --- tokens ---------------------------------------------------------------------------

def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwt(claims, secret=SECRET, alg="HS256") -> str:
    header = b64url(json.dumps({"alg": alg, "typ": "JWT"}, separators=(",", ":")).encode())
    payload = b64url(json.dumps(claims, separators=(",", ":")).encode())
    signing_input = f"{header}.{payload}".encode()
    if alg == "none":
        return f"{header}.{payload}."
    sig = hmac.new(secret.encode(), signing_input, hashlib.sha256).digest()
    return f"{header}.{payload}.{b64url(sig)}"


def break_signature(token: str) -> str:
    # The first character of the signature carries 6 significant bits (the last one only
    # 4, and a lenient decoder ignores the other 2), so changing it always changes the MAC.
    head, payload, sig = token.split(".")
    return f"{head}.{payload}.{('B' if sig[0] == 'A' else 'A')}{sig[1:]}"


# --- payloads as Apollo Router sends them (protocol version 1) --------------------------

def context():
    return {
        "entries": {
            "apollo::supergraph::operation_name": "TopProducts",
            "apollo::supergraph::operation_kind": "query",
            "gqlbench::nested": {"list": [1, 2.5, None, True, "ünïcødé ✓"], "empty": {}},
        }
    }


def subgraph_request():
    return {
        "version": 1,
        "stage": "SubgraphRequest",
        "control": "continue",
        "id": "1b19c05fdafc521016df33148ad63c1b",
        "subgraphRequestId": "9b41ce2c8c3b4bc5a1a2a1dba3c1f6e1",
        "headers": {
            "content-type": ["application/json"],
            "accept": ["application/json", "multipart/mixed;deferSpec=20220824"],
            "x-keep": ["a", "b"],
        },
        "body": {
            "query": "query TopProducts__products__0{topProducts{__typename upc name}}",
            "operationName": "TopProducts__products__0",
            "variables": {"first": 5},
        },
        "context": context(),
        "serviceName": "products",
        "uri": "http://127.0.0.1:4202/graphql",
        "method": "POST",
    }


def router_response():
    return {
        "version": 1,
        "stage": "RouterResponse",
        "control": "continue",
        "id": "2c29c05fdafc521016df33148ad63c1c",
        "headers": {"content-type": ["application/json"], "vary": ["origin"]},
        "context": context(),
        "statusCode": 200,
    }


def router_request(auth=None):
    headers = {
        "content-type": ["application/json"],
        "host": ["127.0.0.1:4000"],
        "user-agent": ["gqlbench-check"],
    }
    if auth is not None:
        headers["authentication"] = [auth]
    return {
        "version": 1,
        "stage": "RouterRequest",
        "control": "continue",
        "id": "3d39c05fdafc521016df33148ad63c1d",
        "headers": headers,
        "context": context(),
        "method": "POST",
        "path": "/graphql",
    }


def hive(payload, stage):
    """The same payload as Hive Router sends it: its stage name, no `control`."""
    payload = dict(payload, stage=stage)
    del payload["control"]
    return payload


# --- the child process ------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def duration(text: str) -> float:
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(ms|s|m|min)?\s*", text)
    if not m:
        return 30.0
    n, unit = float(m.group(1)), m.group(2) or "s"
    return n / 1000 if unit == "ms" else n * 60 if unit in ("m", "min") else n


class Child:
    def __init__(self, folder, manifest):
        start = manifest.get("start", {})
        self.port = free_port()
        env = dict(os.environ)
        env.update({k: str(v) for k, v in start.get("env", {}).items()})
        env[start.get("port_env", "PORT")] = str(self.port)
        env["HOST"] = "127.0.0.1"
        command = [str(c).replace("{port}", str(self.port)) for c in start["command"]]
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            command, cwd=folder, env=env, stdin=subprocess.DEVNULL,
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        self.path = start.get("path", "/health")
        self.ready_timeout = duration(start.get("ready_timeout", "30s"))

    def log_tail(self, n=15) -> str:
        self.log.seek(0)
        lines = self.log.read().decode(errors="replace").splitlines()
        return "\n".join("    " + line for line in lines[-n:])

    def wait_ready(self):
        deadline = time.monotonic() + self.ready_timeout
        last = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"exited during start-up ({self.proc.returncode}):\n{self.log_tail()}")
            try:
                c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                c.request("GET", self.path)
                r = c.getresponse()
                r.read()
                c.close()
                if r.status == 200:
                    return
                last = f"status {r.status}"
            except OSError as e:
                last = str(e)
            time.sleep(0.1)
        raise RuntimeError(f"not ready after {self.ready_timeout}s (GET {self.path}: {last}):\n{self.log_tail()}")

    def stop(self) -> bool:
        """SIGTERM the process group; True when it exited within 5 s (else SIGKILL)."""
        if self.proc.poll() is not None:
            return True
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            return True
        try:
            self.proc.wait(5)
            return True
        except subprocess.TimeoutExpired:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
            return False


# --- HTTP -------------------------------------------------------------------------------

class Answer:
    def __init__(self, r: http.client.HTTPResponse):
        self.status = r.status
        self.headers = r.headers
        self.body = r.read()
        self.keep_alive = not r.will_close

    def json(self):
        return json.loads(self.body)


class Client:
    def __init__(self, port):
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)

    def request(self, method, path, body=None, content_type="application/json") -> Answer:
        headers = {}
        if body is not None:
            if not isinstance(body, bytes):
                body = json.dumps(body).encode()
            headers["Content-Type"] = content_type
        try:
            self.conn.request(method, path, body=body, headers=headers)
            return Answer(self.conn.getresponse())
        except (OSError, http.client.HTTPException):
            # The server closed a kept-alive connection; one fresh try.
            self.conn.close()
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
            self.conn.request(method, path, body=body, headers=headers)
            return Answer(self.conn.getresponse())

    def close(self):
        self.conn.close()


# --- the checks -------------------------------------------------------------------------

class Checks:
    def __init__(self, port):
        self.port = port
        self.http = Client(port)
        self.passed = 0
        self.failures = []

    def check(self, name, fn):
        try:
            problem = fn()
        except Exception as e:  # noqa: BLE001 - any error is a failed check
            problem = f"{type(e).__name__}: {e}"
        if problem:
            self.failures.append((name, problem))
            print(f"FAIL {name}: {problem}")
        else:
            self.passed += 1
            print(f"ok   {name}")

    def post_json(self, path, payload):
        """(answer JSON, problem) of a POST that must be a 200 JSON object on a kept-alive
        connection."""
        a = self.http.request("POST", path, payload)
        if a.status != 200:
            return None, f"POST {path}: status {a.status}, body {a.body[:200]!r}"
        ctype = a.headers.get("Content-Type", "")
        if not ctype.startswith("application/json"):
            return None, f"POST {path}: Content-Type {ctype!r}, expected application/json"
        if not a.keep_alive:
            return None, f"POST {path}: the server closes the connection (HTTP/1.1 keep-alive expected)"
        try:
            out = a.json()
        except ValueError:
            return None, f"POST {path}: answer is not JSON: {a.body[:200]!r}"
        if not isinstance(out, dict):
            return None, f"POST {path}: answer is not a JSON object: {a.body[:200]!r}"
        return out, None

    def stats(self):
        a = self.http.request("GET", "/stats")
        if a.status != 200:
            raise AssertionError(f"GET /stats: status {a.status}")
        return a.json()

    def run(self):
        c = self.check
        c("GET /health answers 200 `ok` with a Content-Length", self.health)
        c("GET /stats starts at zero", lambda: self.expect_stats(0, 0, 0, 0))
        c("/static-subgraph adds `source: coprocessor`, rest unchanged", self.static_subgraph)
        c("/guid-response sets guid-1..guid-10 to distinct UUID v4s, rest unchanged", self.guid_response)
        c("/client-awareness: a good token sets the client headers", self.client_good)
        c("Hive Router's payloads (no `control`): answered with \"control\": \"continue\"", self.hive_payloads)
        self.bad = 0
        good = self.good_token()
        for name, auth in [
            ("a bad signature", f"Bearer {break_signature(good)}"),
            ("a token signed with another secret", "Bearer " + jwt(self.claims(), secret=SECRET + "-not")),
            ("a missing `authentication` header", None),
            ("a token without client_name / client_version", "Bearer " + jwt({"sub": "gqlbench"})),
            ("a token with client_name only", "Bearer " + jwt({"client_name": "x"})),
            ("a malformed token", "Bearer not.a-jwt"),
            ("a token without `Bearer `", good),
            ("an unsigned token (alg none)", "Bearer " + jwt(self.claims(), alg="none")),
        ]:
            c(f"/client-awareness: 401 break for {name}", lambda auth=auth: self.client_bad(auth))
        c("/static-subgraph counts right under 8 concurrent connections", self.concurrent)
        c("GET /stats counts the calls and the rejected tokens",
          lambda: self.expect_stats(1 + 200, 3, 2 + self.bad, self.bad))
        for ep in ENDPOINTS:
            c(f"/{ep}: 400 for a payload that is not JSON", lambda ep=ep: self.not_json(ep))
        c("404 for unknown paths", self.unknown)
        self.http.close()

    def health(self):
        a = self.http.request("GET", "/health")
        if a.status != 200:
            return f"status {a.status}"
        if a.body.strip() != b"ok":
            return f"body {a.body[:100]!r}, expected ok"
        if a.headers.get("Content-Length") is None:
            return "no Content-Length (gqlbench's probe reads no chunked body)"
        return None

    def expect_stats(self, static, guid, client, rejected):
        s = self.stats()
        want = {"static-subgraph": static, "guid-response": guid,
                "client-awareness": client, "rejected": rejected}
        if s != want:
            return f"got {json.dumps(s, sort_keys=True)}, expected {json.dumps(want, sort_keys=True)}"
        return None

    def static_subgraph(self):
        sent = subgraph_request()
        out, problem = self.post_json("/static-subgraph", sent)
        if problem:
            return problem
        want = copy.deepcopy(sent)
        want["headers"]["source"] = ["coprocessor"]
        return diff(out, want)

    def guid_response(self):
        seen = set()
        for _ in range(2):
            sent = router_response()
            out, problem = self.post_json("/guid-response", sent)
            if problem:
                return problem
            headers = out.get("headers")
            if not isinstance(headers, dict):
                return f"headers is {headers!r}"
            for i in range(1, 11):
                v = headers.pop(f"guid-{i}", None)
                if not (isinstance(v, list) and len(v) == 1 and isinstance(v[0], str)):
                    return f"guid-{i} is {v!r}, expected one string"
                if len(v[0]) != 36 or not UUID_V4.match(v[0]):
                    return f"guid-{i} is {v[0]!r}, not a UUID v4 of 36 characters"
                if v[0].lower() in seen:
                    return f"guid-{i} repeats {v[0]!r}"
                seen.add(v[0].lower())
            problem = diff(out, sent)
            if problem:
                return problem
        return None

    def claims(self):
        return {"sub": "gqlbench", "client_name": "gqlbench-check", "client_version": "9.8.7",
                "iat": int(time.time()) - 60}

    def good_token(self):
        return jwt(self.claims())

    def client_good(self):
        sent = router_request(f"Bearer {self.good_token()}")
        out, problem = self.post_json("/client-awareness", sent)
        if problem:
            return problem
        want = copy.deepcopy(sent)
        want["headers"]["apollographql-client-name"] = ["gqlbench-check"]
        want["headers"]["apollographql-client-version"] = ["9.8.7"]
        return diff(out, want)

    def hive_payloads(self):
        # Hive Router's protocol (version 1) is Apollo's with other stage names and without
        # `control` in what it sends; it refuses an answer without one.
        for path, sent, added in [
            ("/guid-response", hive(router_response(), "router.response"), None),
            ("/client-awareness", hive(router_request(f"Bearer {self.good_token()}"), "router.request"),
             {"apollographql-client-name": ["gqlbench-check"], "apollographql-client-version": ["9.8.7"]}),
        ]:
            out, problem = self.post_json(path, sent)
            if problem:
                return problem
            if out.get("control") != "continue":
                return f"{path}: control is {json.dumps(out.get('control'))}, expected \"continue\""
            if added is None:
                if not all(f"guid-{i}" in out.get("headers", {}) for i in range(1, 11)):
                    return f"{path}: guid-1..guid-10 not all set: {json.dumps(out.get('headers'))[:200]}"
            else:
                want = copy.deepcopy(sent)
                want["control"] = "continue"
                want["headers"].update(added)
                problem = diff(out, want)
                if problem:
                    return f"{path}: {problem}"
        return None

    def client_bad(self, auth):
        self.bad += 1
        sent = router_request(auth)
        out, problem = self.post_json("/client-awareness", sent)
        if problem:
            return problem
        if out.get("control") != {"break": 401}:
            return f"control is {json.dumps(out.get('control'))}, expected {{\"break\": 401}}"
        body = out.get("body")
        if not isinstance(body, str):
            return f"body is {json.dumps(body)}, expected a JSON string"
        try:
            parsed = json.loads(body)
        except ValueError:
            return f"body {body!r} does not hold JSON"
        if parsed != REJECT_BODY:
            return f"body {body!r}, expected {json.dumps(REJECT_BODY)}"
        want = copy.deepcopy(sent)
        want["control"] = out["control"]
        want["body"] = body
        return diff(out, want)

    def concurrent(self):
        problems = []

        def worker():
            client = Client(self.port)
            try:
                for _ in range(25):
                    a = client.request("POST", "/static-subgraph", subgraph_request())
                    if a.status != 200 or a.json()["headers"].get("source") != ["coprocessor"]:
                        problems.append(f"status {a.status}, body {a.body[:120]!r}")
                        return
            except Exception as e:  # noqa: BLE001
                problems.append(f"{type(e).__name__}: {e}")
            finally:
                client.close()

        threads = [threading.Thread(target=worker) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return problems[0] if problems else None

    def not_json(self, ep):
        for body, ctype in [(b"this is not JSON", "application/json"), (b"{\"version\": 1,", "application/json"),
                            (b"", "application/json"), (b"<xml/>", "text/plain")]:
            a = self.http.request("POST", f"/{ep}", body, content_type=ctype)
            if a.status != 400:
                return f"POST /{ep} with {body!r} ({ctype}): status {a.status}, expected 400"
        return None

    def unknown(self):
        for method, path, body in [("GET", "/nope", None), ("POST", "/nope", router_request()),
                                   ("POST", "/static-subgraph/extra", subgraph_request()),
                                   ("GET", "/", None)]:
            a = self.http.request(method, path, body)
            if a.status != 404:
                return f"{method} {path}: status {a.status}, expected 404"
        return None


def diff(got, want, path="$"):
    """Where `got` differs from `want` (JSON values), or None."""
    if isinstance(want, dict) and isinstance(got, dict):
        for k in want:
            if k not in got:
                return f"{path}.{k} is missing"
        for k in got:
            if k not in want:
                return f"{path}.{k} was added: {json.dumps(got[k])[:120]}"
        for k in want:
            d = diff(got[k], want[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        for i, (g, w) in enumerate(zip(got, want)):
            d = diff(g, w, f"{path}[{i}]")
            if d:
                return d
        return None
    if got != want or isinstance(got, bool) != isinstance(want, bool) or (got is None) != (want is None):
        return f"{path} is {json.dumps(got)[:120]}, expected {json.dumps(want)[:120]}"
    return None


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    folder = os.path.abspath(argv[1])
    manifest_path = os.path.join(folder, "target.toml")
    try:
        with open(manifest_path, "rb") as f:
            manifest = tomllib.load(f)
        _ = manifest["start"]["command"]
    except (OSError, tomllib.TOMLDecodeError, KeyError) as e:
        print(f"FAIL {manifest_path}: {e}", file=sys.stderr)
        return 1
    name = manifest.get("name", os.path.basename(folder))
    print(f"checking {name} ({folder}) against CONTRACT.md")
    try:
        child = Child(folder, manifest)
    except OSError as e:
        print(f"FAIL start {manifest['start']['command']}: {e} (installed? see [install] in target.toml)")
        return 1
    try:
        child.wait_ready()
    except RuntimeError as e:
        child.stop()
        print(f"FAIL start: {e}")
        return 1
    checks = Checks(child.port)
    try:
        checks.run()
    finally:
        stopped = child.stop()
    if not stopped:
        checks.failures.append(("SIGTERM", "still running 5 s after SIGTERM (killed)"))
        print("FAIL exits on SIGTERM: still running after 5 s (killed)")
    else:
        checks.passed += 1
        print("ok   exits on SIGTERM")
    print(f"{name}: {checks.passed} passed, {len(checks.failures)} failed")
    if checks.failures:
        print("reasons:")
        for n, p in checks.failures:
            print(f"  - {n}: {p}")
        print("log of the coprocessor (last lines):")
        print(child.log_tail())
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
