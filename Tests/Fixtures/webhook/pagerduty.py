#!/usr/bin/env python3
"""A stand-in for PagerDuty's Events API v2 (POST /v2/enqueue) on 127.0.0.1, for Pathwatch's tests.

It checks each request as PagerDuty's API reference describes an event
(https://developer.pagerduty.com/api-reference/368ae3d938c9e-send-an-event-to-pager-duty and
https://developer.pagerduty.com/docs/events-api-v2/trigger-events/):
  routing_key   string, 32 characters, required
  event_action  "trigger" | "acknowledge" | "resolve", required
  dedup_key     string of at most 255 characters; required for acknowledge and resolve
  payload       required for trigger: summary (string, at most 1024), source (string),
                severity ("critical" | "error" | "warning" | "info"), and optionally timestamp
                (ISO 8601), component, group, class (strings), custom_details (an object)
and answers as PagerDuty does: 202 {"status": "success", "message": "Event processed",
"dedup_key": …} for a valid event, 400 {"status": "invalid event", "message": "Event object is
invalid", "errors": [...]} otherwise. With --throttle-first N, the first N requests are answered
429 (PagerDuty's rate limit; it documents no Retry-After), before they are checked.

Every request is recorded as one JSON line in --log: {"status", "event", "errors"}.
"""
import argparse
import datetime
import json
from standin import StandInHandler, serve

SEVERITIES = {"critical", "error", "warning", "info"}
ACTIONS = {"trigger", "acknowledge", "resolve"}


def problems(event):
    errors = []
    if not isinstance(event, dict):
        return ["the body is not an object"]
    key = event.get("routing_key")
    if not isinstance(key, str) or len(key) != 32:
        errors.append("routing_key must be a 32-character string")
    action = event.get("event_action")
    if action not in ACTIONS:
        errors.append("event_action must be one of trigger, acknowledge, resolve")
    dedup = event.get("dedup_key")
    if dedup is not None and (not isinstance(dedup, str) or len(dedup) > 255):
        errors.append("dedup_key must be a string of at most 255 characters")
    if action in ("acknowledge", "resolve") and not dedup:
        errors.append("dedup_key is required to " + str(action))
    if action == "trigger":
        payload = event.get("payload")
        if not isinstance(payload, dict):
            return errors + ["payload is required to trigger"]
        summary = payload.get("summary")
        if not isinstance(summary, str) or not summary or len(summary) > 1024:
            errors.append("payload.summary must be a string of 1 to 1024 characters")
        if not isinstance(payload.get("source"), str) or not payload["source"]:
            errors.append("payload.source is required")
        if payload.get("severity") not in SEVERITIES:
            errors.append("payload.severity must be one of critical, error, warning, info")
        if "timestamp" in payload:
            try:
                datetime.datetime.fromisoformat(payload["timestamp"].replace("Z", "+00:00"))
            except (AttributeError, ValueError):
                errors.append("payload.timestamp must be ISO 8601")
        for name in ("component", "group", "class"):
            if name in payload and not isinstance(payload[name], str):
                errors.append(f"payload.{name} must be a string")
        if "custom_details" in payload and not isinstance(payload["custom_details"], dict):
            errors.append("payload.custom_details must be an object")
    return errors


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--throttle-first", type=int, default=0)
    args = parser.parse_args()
    log = open(args.log, "a", encoding="utf-8")
    seen = {"requests": 0}

    class Handler(StandInHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            seen["requests"] += 1
            if self.path != "/v2/enqueue":
                self.answer(404, {"status": "not found"})
                return
            if seen["requests"] <= args.throttle_first:
                log.write(json.dumps({"status": 429}) + "\n")
                log.flush()
                self.answer(429, {"status": "throttle event", "message": "Requests for this service are arriving too quickly."})
                return
            try:
                event = json.loads(body)
            except ValueError:
                event = None
            errors = problems(event) if self.headers.get("Content-Type") == "application/json" else ["not JSON"]
            status = 400 if errors else 202
            log.write(json.dumps({"status": status, "event": event, "errors": errors}) + "\n")
            log.flush()
            if errors:
                self.answer(400, {"status": "invalid event", "message": "Event object is invalid", "errors": errors})
            else:
                self.answer(202, {"status": "success", "message": "Event processed", "dedup_key": event.get("dedup_key")})

    serve(args.port, Handler)


if __name__ == "__main__":
    main()
