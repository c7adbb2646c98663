"""Reads a remote_write queue folder as the sink writes it (Sources/PathwatchQueue/QueueRecord.swift,
Sources/PathwatchRemoteWrite/Dense/DenseReport.swift): each record's stamp, frame bytes, series and
body, and the bytes a segment's preamble takes when it lists every series the records define.
snappy comes from Debian's libsnappy, as the agent's does."""
import ctypes
import os

_snappy = ctypes.CDLL("libsnappy.so.1")


def snappy_uncompress(data):
    length = ctypes.c_size_t()
    if _snappy.snappy_uncompressed_length(data, ctypes.c_size_t(len(data)), ctypes.byref(length)) != 0:
        raise ValueError("not a snappy block")
    out = ctypes.create_string_buffer(length.value)
    if _snappy.snappy_uncompress(data, ctypes.c_size_t(len(data)), out, ctypes.byref(length)) != 0:
        raise ValueError("not a snappy block")
    return out.raw[:length.value]


def snappy_compress(data):
    room = _snappy.snappy_max_compressed_length(ctypes.c_size_t(len(data)))
    out = ctypes.create_string_buffer(room)
    length = ctypes.c_size_t(room)
    if _snappy.snappy_compress(data, ctypes.c_size_t(len(data)), out, ctypes.byref(length)) != 0:
        raise ValueError("snappy refused")
    return out.raw[:length.value]


def varint(data, offset):
    value, shift = 0, 0
    while True:
        byte = data[offset]
        value |= (byte & 0x7F) << shift
        offset += 1
        if byte < 0x80:
            return value, offset
        shift += 7


def put_varint(value):
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def records(folder):
    """(stamp ms, frame bytes, series, body) of each record in the queue's segments, preambles
    (version 2) left out."""
    found = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".seg"):
            continue
        with open(os.path.join(folder, name), "rb") as f:
            data = f.read()
        offset = 0
        while offset + 20 <= len(data):
            length = int.from_bytes(data[offset:offset + 4], "little")
            if offset + 8 + length > len(data):
                break  # a record being written
            if data[offset + 8] == 1:
                id_length = int.from_bytes(data[offset + 18:offset + 20], "little")
                stamp, series = data[offset + 20:offset + 20 + id_length].decode().split(".")
                found.append((int(stamp), 8 + length, int(series), data[offset + 20 + id_length:offset + 8 + length]))
            offset += 8 + length
    return found


def definitions(body):
    """The (number, encoded definition) pairs a kind-2 record body defines."""
    payload = snappy_uncompress(body[1:]) if body[0] & 1 else body[1:]
    count, offset = varint(payload, 0)
    found = []
    for _ in range(count):
        start = offset
        number, offset = varint(payload, offset)
        labels, offset = varint(payload, offset)
        for _ in range(2 * labels):
            length, offset = varint(payload, offset)
            offset += length
        found.append((number, payload[start:offset]))
    return found


def preamble_bytes(all_records):
    """A segment's preamble listing every series the records define, framed, as the agent writes it."""
    unique = {}
    for record in all_records:
        for number, encoded in definitions(record[3]):
            unique.setdefault(number, encoded)
    payload = put_varint(len(unique)) + b"".join(unique[n] for n in sorted(unique))
    packed = snappy_compress(payload)
    body = 1 + (len(packed) if len(packed) <= len(payload) - len(payload) // 8 else len(payload))
    return 8 + 12 + body
