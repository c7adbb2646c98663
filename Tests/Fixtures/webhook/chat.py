#!/usr/bin/env python3
"""A stand-in for a chat provider's incoming message API on 127.0.0.1, for Pathwatch's tests.

--provider names which, and each request is checked as that provider's API reference describes
its body, and answered as the provider does:
  discord     Execute Webhook (https://discord.com/developers/docs/resources/webhook#execute-webhook):
              {"content": string of 1 to 2,000 characters}; 204 No Content. Rate limited: 429 with
              {"message": "You are being rate limited.", "retry_after": 0.5, "global": false}
  telegram    sendMessage (https://core.telegram.org/bots/api#sendmessage) at /bot<token>/sendMessage:
              {"chat_id": integer or "@channel", "text": string of 1 to 4,096 characters}; 200
              {"ok": true, "result": {...}}; 401 {"ok": false, "error_code": 401} for another token.
              Rate limited: 429 {"ok": false, "error_code": 429, "description": "Too Many Requests:
              retry after 1", "parameters": {"retry_after": 1}}
  teams       Workflows "post to a channel when a webhook request is received"
              (https://learn.microsoft.com/en-us/connectors/teams/#microsoft-teams-webhook): {"type":
              "message", "attachments": [{"contentType": "application/vnd.microsoft.card.adaptive",
              "content": an AdaptiveCard (type, version, body of elements each with a type)}]}; 202
  google_chat  incoming webhooks (https://developers.google.com/workspace/chat/quickstart/webhooks):
              {"text": string of 1 to 4,096 characters}; 200 with the message
  mattermost  incoming webhooks (https://developers.mattermost.com/integrate/webhooks/incoming/):
              {"text": string of 1 to 16,383 characters}; 200 "ok"
  rocketchat  incoming webhooks (https://docs.rocket.chat/docs/integrations): {"text": string of 1
              to 5,000 characters}; 200 {"success": true}
  ntfy        publish as JSON (https://docs.ntfy.sh/publish/#publish-as-json) to the root: {"topic":
              string (--chat), "message": string of at most 4,096 bytes, "title": string, "priority":
              1 to 5, "tags": strings}; 200 with the message
  gotify      createMessage (https://gotify.net/api-docs) at /message with X-Gotify-Key: <token>:
              {"message": string, "title": string, "priority": integer}; 200; 401 for another key
  pushover    Message API (https://pushover.net/api): {"token": --token, "user": --chat, "message":
              1 to 1,024 characters, "title": at most 250, "priority": -2 to 2}; 200 {"status": 1,
              "request": …}; 400 {"status": 0, "errors": […]}
A malformed body is answered 400. With --throttle-first N, the first N requests are answered 429
in the provider's own form (Retry-After as a header only for the Slack-like ones: Google Chat,
Mattermost, Rocket.Chat, Teams), and a request that comes before the wait it was told is over is
recorded "early".

Every request is recorded as one JSON line in --log: {"status", "body", "errors", "early", "at"}.
"""
import argparse
import json
import time
from standin import StandInHandler, serve

LIMITS = {"discord": 2000, "telegram": 4096, "google_chat": 4096, "mattermost": 16383, "rocketchat": 5000,
          "ntfy": 4096, "gotify": 4096, "pushover": 1024}


def problems(provider, body, path, token, chat, headers):
    if not isinstance(body, dict):
        return ["not a JSON object"]
    if provider in ("ntfy", "gotify", "pushover"):
        errors = []
        message = body.get("message")
        size = len(message.encode()) if provider == "ntfy" and isinstance(message, str) else len(message or "")
        if not isinstance(message, str) or not message or size > LIMITS[provider]:
            errors.append(f"message must be a string of 1 to {LIMITS[provider]}")
        if not isinstance(body.get("title", ""), str) or len(body.get("title", "")) > 250:
            errors.append("title must be a string (at most 250 characters)")
        priority = body.get("priority", 0 if provider != "ntfy" else 3)
        ranges = {"ntfy": range(1, 6), "gotify": range(0, 11), "pushover": range(-2, 3)}
        if not isinstance(priority, int) or priority not in ranges[provider]:
            errors.append("priority out of range")
        if provider == "ntfy":
            if body.get("topic") != chat or path != "/":
                errors.append("the topic is missing or not the expected one")
            tags = body.get("tags", [])
            if not isinstance(tags, list) or any(not isinstance(t, str) for t in tags):
                errors.append("tags must be strings")
        if provider == "gotify" and (path != "/message" or headers.get("X-Gotify-Key") != token):
            return ["unauthorized"]
        if provider == "pushover" and (body.get("token") != token or body.get("user") != chat):
            errors.append("application token or user key is invalid")
        return errors
    if provider == "teams":
        attachments = body.get("attachments")
        if body.get("type") != "message" or not isinstance(attachments, list) or not attachments:
            return ["a message with attachments is expected"]
        errors = []
        for a in attachments:
            card = a.get("content") if isinstance(a, dict) else None
            if a.get("contentType") != "application/vnd.microsoft.card.adaptive" or not isinstance(card, dict):
                errors.append("each attachment must be an Adaptive Card")
                continue
            if card.get("type") != "AdaptiveCard" or not isinstance(card.get("version"), str):
                errors.append("the card needs type AdaptiveCard and a version")
            elements = card.get("body")
            if not isinstance(elements, list) or not elements or any(
                not isinstance(e, dict) or not isinstance(e.get("type"), str) for e in elements
            ):
                errors.append("the card's body must be elements with a type")
        return errors
    key = "content" if provider == "discord" else "text"
    text = body.get(key)
    errors = []
    if not isinstance(text, str) or not text or len(text) > LIMITS[provider]:
        errors.append(f"{key} must be a string of 1 to {LIMITS[provider]} characters")
    if provider == "telegram":
        if path != f"/bot{token}/sendMessage":
            errors.append("unauthorized")
        if str(body.get("chat_id")) != chat:
            errors.append("chat not found")
    return errors


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--provider", required=True, choices=["discord", "telegram", "teams", "google_chat", "mattermost", "rocketchat", "ntfy", "gotify", "pushover"])
    parser.add_argument("--token", default="")
    parser.add_argument("--chat", default="")
    parser.add_argument("--throttle-first", type=int, default=0)
    args = parser.parse_args()
    log = open(args.log, "a", encoding="utf-8")
    state = {"requests": 0, "not_before": 0.0}

    class Handler(StandInHandler):
        def do_POST(self):
            raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            now = time.time()
            state["requests"] += 1
            record = {"at": now, "early": now < state["not_before"]}
            if state["requests"] <= args.throttle_first:
                state["not_before"] = now + 1
                record["status"] = 429
                log.write(json.dumps(record) + "\n")
                log.flush()
                if args.provider == "discord":
                    self.answer(429, {"message": "You are being rate limited.", "retry_after": 1.0, "global": False})
                elif args.provider == "telegram":
                    self.answer(429, {"ok": False, "error_code": 429, "description": "Too Many Requests: retry after 1",
                                      "parameters": {"retry_after": 1}})
                else:
                    self.answer(429, {"error": "rate limited"}, headers=[("Retry-After", "1")])
                return
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
            errors = problems(args.provider, body, self.path, args.token, args.chat, self.headers)
            if errors == ["unauthorized"]:
                status = 401
            else:
                status = 400 if errors else {"discord": 204, "teams": 202}.get(args.provider, 200)
            record.update(status=status, body=body, errors=errors)
            log.write(json.dumps(record) + "\n")
            log.flush()
            if status == 204:
                self.answer(204)
            elif args.provider == "telegram":
                self.answer(status, {"ok": status == 200, "result": {"message_id": state["requests"]}})
            elif args.provider == "pushover":
                self.answer(status, {"status": 1 if status == 200 else 0, "request": "r1", "errors": errors})
            elif args.provider == "mattermost" and status == 200:
                self.answer(200, b"ok")
            else:
                self.answer(status, {"success": status == 200, "errors": errors})

    serve(args.port, Handler)


if __name__ == "__main__":
    main()
