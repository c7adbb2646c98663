#!/usr/bin/env python3
"""A resolver on 127.0.0.1 that answers wrongly in one way, for the dns probe's wording tests.
Usage: hostile_resolver.py MODE. Listens on one port for UDP and TCP and prints "ready PORT".

MODE is one of
  txt_nul       answers every query over UDP with one TXT record "left<NUL>right"
  tc_garbage    answers over UDP with an empty truncated answer (TC set), so the client asks
                again over TCP; there it reads the query and writes text that is not DNS
                (an HTTP error, as a web server on port 53 would), then closes
  tc_short      as tc_garbage, but writes one length-prefixed message of 4 bytes, shorter
                than any DNS header, and keeps the connection open
  tc_close      as tc_garbage, but accepts the TCP connection, reads the query and closes it
                without a word
  tc_refused    as tc_garbage, but nothing listens for TCP: the connection is refused
"""
import socket, struct, sys, threading

mode = sys.argv[1]


def question_end(query):
    at = 12
    while query[at] != 0:
        at += 1 + query[at]
    return at + 5


def answer(query, truncated=False, records=b"", count=0):
    flags = 0x8180 | (0x0200 if truncated else 0)
    header = query[:2] + struct.pack(">HHHHH", flags, 1, count, 0, 0)
    return header + query[12:question_end(query)] + records


def txt_record(text):
    data = bytes([len(text)]) + text
    return b"\xc0\x0c" + struct.pack(">HHIH", 16, 1, 60, len(data)) + data


def serve_udp(udp):
    while True:
        query, client = udp.recvfrom(65535)
        if mode == "txt_nul":
            udp.sendto(answer(query, records=txt_record(b"left\x00right"), count=1), client)
        else:
            udp.sendto(answer(query, truncated=True), client)


def serve_tcp_connection(connection):
    with connection:
        connection.recv(65535)
        if mode == "tc_garbage":
            connection.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
        elif mode == "tc_short":
            connection.sendall(b"\x00\x04\xde\xad\xbe\xef")
            connection.recv(65535)


def serve_tcp(tcp):
    while True:
        connection, _ = tcp.accept()
        threading.Thread(target=serve_tcp_connection, args=(connection,), daemon=True).start()


# One port for both: bind TCP to a free port, then UDP to the same one (retried if taken).
while True:
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    tcp.bind(("127.0.0.1", 0))
    port = tcp.getsockname()[1]
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        udp.bind(("127.0.0.1", port))
        break
    except OSError:
        tcp.close()
        udp.close()
if mode == "tc_refused":
    tcp.close()
    print("ready", port, flush=True)
    serve_udp(udp)
tcp.listen(16)
threading.Thread(target=serve_udp, args=(udp,), daemon=True).start()
print("ready", port, flush=True)
serve_tcp(tcp)
