#!/usr/bin/env python3
"""A real SMTP server on 127.0.0.1 for Pathwatch's tests: aiosmtpd (from PyPI), demanding
STARTTLS (with --cert and --key) before anything, and AUTH (PLAIN or LOGIN, --user and
--password) before MAIL. Each message is parsed with Python's `email` package (its default,
RFC 5322 policy) and recorded as one JSON line in --log: the envelope, the decoded headers
(subject, from, to, date, message id, content type), the body as text, and whether the session
was under TLS and authenticated. With --defer-first N, the first N messages are answered 451
(try later) after their data, as a busy server does.
"""
import argparse
import email
import email.policy
import email.utils
import json
import ssl
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--user", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--defer-first", type=int, default=0)
    args = parser.parse_args()
    log = open(args.log, "a", encoding="utf-8")
    state = {"messages": 0}

    def authenticator(server, session, envelope, mechanism, auth_data):
        ok = isinstance(auth_data, LoginPassword) and auth_data.login.decode() == args.user \
            and auth_data.password.decode() == args.password
        return AuthResult(success=ok, handled=False)

    class Handler:
        async def handle_DATA(self, server, session, envelope):
            state["messages"] += 1
            if state["messages"] <= args.defer_first:
                log.write(json.dumps({"deferred": True}) + "\n")
                log.flush()
                return "451 4.3.0 Try again later"
            message = email.message_from_bytes(envelope.original_content or envelope.content, policy=email.policy.default)
            date = message["date"]
            record = {
                "mail_from": envelope.mail_from,
                "rcpt_tos": envelope.rcpt_tos,
                "subject": str(message["subject"]),
                "from": str(message["from"]),
                "to": str(message["to"]),
                "date_ok": date is not None and email.utils.parsedate_to_datetime(str(date)) is not None,
                "message_id": str(message["message-id"]),
                "content_type": message.get_content_type(),
                "charset": message.get_content_charset(),
                "body": message.get_content(),
                "tls": session.ssl is not None,
                "authenticated": bool(session.authenticated),
            }
            log.write(json.dumps(record) + "\n")
            log.flush()
            return "250 2.0.0 Message accepted"

    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(args.cert, args.key)
    controller = Controller(
        Handler(), hostname="127.0.0.1", port=args.port, tls_context=context, require_starttls=True,
        authenticator=authenticator, auth_required=True, auth_require_tls=True, server_hostname="localhost",
        ready_timeout=30)
    controller.start()
    print("listening", flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
