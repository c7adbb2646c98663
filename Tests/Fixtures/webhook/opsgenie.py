#!/usr/bin/env python3
"""A stand-in for Opsgenie's Alert API on 127.0.0.1, for Pathwatch's tests.

It checks each request as Opsgenie's Alert API reference describes it
(https://docs.opsgenie.com/docs/alert-api, "Create Alert" and "Close Alert"):
  every request   Authorization: GenieKey <key> (401 otherwise), a JSON body
  create          POST /v2/alerts: message (required, at most 130 characters), alias (at most
                  512), description (at most 15,000), tags (at most 20, each at most 50), details
                  (an object of strings), entity (at most 512), source (at most 100), priority
                  (P1 to P5)
  close           POST /v2/alerts/<identifier>/close?identifierType=alias: source and user (at
                  most 100), note (at most 25,000)
and answers as Opsgenie does: 202 {"result": "Request will be processed", "took": …,
"requestId": …}, 422 {"message": …} for a body it refuses. With --throttle-first N, the first
N requests are answered as Opsgenie answers a request over its rate ("Rate Limiting", same
reference): 429 with X-RateLimit-State: THROTTLED and {"message": …, "took": …, "requestId": …}. It keeps the open alerts by alias
(a create of an open alias counts up instead of opening another, as Opsgenie de-duplicates).

Every request is recorded as one JSON line in --log: {"status", "action", "alias", "body",
"errors", "open"} ("open": the aliases open after it).
"""
import argparse
import json
import urllib.parse
import uuid
from standin import StandInHandler, serve

LIMITS = {"message": 130, "alias": 512, "description": 15000, "entity": 512, "source": 100, "user": 100}


def create_problems(body):
    errors = []
    message = body.get("message")
    if not isinstance(message, str) or not message:
        errors.append("message is required")
    for name, limit in LIMITS.items():
        if name in body and (not isinstance(body[name], str) or len(body[name]) > limit):
            errors.append(f"{name} must be a string of at most {limit} characters")
    tags = body.get("tags", [])
    if not isinstance(tags, list) or len(tags) > 20 or any(not isinstance(t, str) or len(t) > 50 for t in tags):
        errors.append("tags must be at most 20 strings of at most 50 characters")
    details = body.get("details", {})
    if not isinstance(details, dict) or any(not isinstance(v, str) for v in details.values()):
        errors.append("details must be an object of strings")
    if "priority" in body and body["priority"] not in ("P1", "P2", "P3", "P4", "P5"):
        errors.append("priority must be one of P1 to P5")
    return errors


def close_problems(body):
    errors = []
    for name in ("source", "user"):
        if name in body and (not isinstance(body[name], str) or len(body[name]) > 100):
            errors.append(f"{name} must be a string of at most 100 characters")
    if "note" in body and (not isinstance(body["note"], str) or len(body["note"]) > 25000):
        errors.append("note must be a string of at most 25000 characters")
    return errors


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--throttle-first", type=int, default=0)
    args = parser.parse_args()
    log = open(args.log, "a", encoding="utf-8")
    open_alerts = {}
    seen = {"requests": 0}

    class Handler(StandInHandler):
        def do_POST(self):
            raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            url = urllib.parse.urlsplit(self.path)
            record = {"path": url.path, "query": url.query}
            seen["requests"] += 1
            if seen["requests"] <= args.throttle_first:
                record.update(status=429)
                log.write(json.dumps(record) + "\n")
                log.flush()
                self.answer(
                    429, {"message": "Rate limit exceeded", "took": 0.0, "requestId": str(uuid.uuid4())},
                    headers=[("X-RateLimit-State", "THROTTLED")])
                return
            if self.headers.get("Authorization") != "GenieKey " + args.key:
                record.update(status=401)
                log.write(json.dumps(record) + "\n")
                log.flush()
                self.answer(401, {"message": "Could not authenticate"})
                return
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
            parts = url.path.split("/")
            if url.path == "/v2/alerts":
                action = "create"
                errors = create_problems(body) if isinstance(body, dict) else ["not a JSON object"]
                alias = (body or {}).get("alias")
            elif len(parts) == 5 and parts[:3] == ["", "v2", "alerts"] and parts[4] == "close":
                action = "close"
                alias = urllib.parse.unquote(parts[3])
                errors = close_problems(body) if isinstance(body, dict) else ["not a JSON object"]
                if urllib.parse.parse_qs(url.query).get("identifierType") != ["alias"]:
                    errors.append("identifierType=alias is expected with an alias")
            else:
                self.answer(404, {"message": "not found"})
                return
            status = 422 if errors else 202
            if not errors and action == "create":
                open_alerts[alias] = open_alerts.get(alias, 0) + 1
            if not errors and action == "close":
                open_alerts.pop(alias, None)
            record.update(status=status, action=action, alias=alias, body=body, errors=errors, open=sorted(open_alerts))
            log.write(json.dumps(record) + "\n")
            log.flush()
            if errors:
                self.answer(422, {"message": "; ".join(errors), "took": 0.001, "requestId": str(uuid.uuid4())})
            else:
                self.answer(202, {"result": "Request will be processed", "took": 0.002, "requestId": str(uuid.uuid4())})

    serve(args.port, Handler)


if __name__ == "__main__":
    main()
