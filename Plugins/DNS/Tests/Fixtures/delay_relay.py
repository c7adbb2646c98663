#!/usr/bin/env python3
"""A UDP relay that holds each DNS query DELAY_MS before passing it upstream: a slow resolver,
on a kernel without netem. Usage: delay_relay.py LISTEN_HOST LISTEN_PORT UPSTREAM_HOST UPSTREAM_PORT DELAY_MS"""
import socket, sys, threading, time

listen_host, listen_port, up_host, up_port, delay_ms = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
front = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
front.bind((listen_host, listen_port))
print("ready", flush=True)

def relay(query, client):
    time.sleep(delay_ms / 1000)
    back = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    back.settimeout(5)
    try:
        back.sendto(query, (up_host, up_port))
        front.sendto(back.recv(65535), client)
    except OSError:
        pass
    finally:
        back.close()

while True:
    query, client = front.recvfrom(65535)
    threading.Thread(target=relay, args=(query, client), daemon=True).start()
