"""Apollo Router external coprocessor (protocol version 1) for gqlbench's extensibility
suite: the contract is targets/_coprocessors/CONTRACT.md.

Flask served by waitress (its default of 4 worker threads), PyJWT for HS256, uuid.uuid4()
for the GUIDs. Logs nothing per request: waitress's "Task queue depth" warning, which it
logs for every request that has to wait for a free thread, is silenced.
"""
import logging
import os
import sys
import threading
import uuid

import jwt
from flask import Flask, abort, request
from waitress import serve

SECRET = os.environ.get("GQLBENCH_JWT_SECRET") or "apollo"
# The answer's body when a token is refused: a JSON string holding a GraphQL response.
REJECT_BODY = '{"errors":[{"message":"invalid token"}]}'
GUID_NAMES = [f"guid-{i}" for i in range(1, 11)]

app = Flask(__name__)

_lock = threading.Lock()
_served = {"static-subgraph": 0, "guid-response": 0, "client-awareness": 0, "rejected": 0}


def _count(*names):
    with _lock:
        for name in names:
            _served[name] += 1


def _payload():
    """The router's JSON object and its `headers` (lower-case name -> values); 400 when
    the body is not a JSON object."""
    payload = request.get_json(force=True)  # not JSON: BadRequest (400)
    if not isinstance(payload, dict):
        abort(400)
    headers = payload.get("headers")
    if headers is None:
        headers = payload["headers"] = {}
    elif not isinstance(headers, dict):
        abort(400)
    # Hive Router's payloads carry no `control` but need one back; Apollo's carry it.
    payload.setdefault("control", "continue")
    return payload, headers


@app.get("/health")
def health():
    return "ok", 200, {"Content-Type": "text/plain"}


@app.get("/stats")
def stats():
    with _lock:
        return dict(_served)


@app.post("/static-subgraph")
def static_subgraph():
    """SubgraphRequest: adds `source: coprocessor`."""
    payload, headers = _payload()
    headers["source"] = ["coprocessor"]
    _count("static-subgraph")
    return payload


@app.post("/guid-response")
def guid_response():
    """RouterResponse: sets guid-1 .. guid-10 to fresh UUID v4s."""
    payload, headers = _payload()
    for name in GUID_NAMES:
        headers[name] = [str(uuid.uuid4())]
    _count("guid-response")
    return payload


def _client(headers):
    """(client_name, client_version) from a verified `authentication: Bearer <HS256 JWT>`,
    or None for a missing, malformed or badly signed token or missing claims."""
    values = headers.get("authentication")
    if not isinstance(values, list) or not values or not isinstance(values[0], str):
        return None
    scheme, _, token = values[0].partition(" ")
    if scheme != "Bearer" or not token:
        return None
    try:
        claims = jwt.decode(token, SECRET, algorithms=["HS256"])
    except jwt.InvalidTokenError:
        return None
    name, version = claims.get("client_name"), claims.get("client_version")
    if isinstance(name, str) and isinstance(version, str):
        return name, version
    return None


@app.post("/client-awareness")
def client_awareness():
    """RouterRequest: client name and version from the token's claims, or a 401 break."""
    payload, headers = _payload()
    client = _client(headers)
    if client is None:
        payload["control"] = {"break": 401}
        payload["body"] = REJECT_BODY
        _count("client-awareness", "rejected")
    else:
        headers["apollographql-client-name"] = [client[0]]
        headers["apollographql-client-version"] = [client[1]]
        _count("client-awareness")
    return payload


if __name__ == "__main__":
    port = os.environ.get("PORT")
    if not port:
        sys.exit("PORT is not set")
    host = os.environ.get("HOST") or "127.0.0.1"
    logging.getLogger("waitress.queue").disabled = True
    print(f"coprocessor-python listening on http://{host}:{port}", file=sys.stderr, flush=True)
    serve(app, host=host, port=int(port))
