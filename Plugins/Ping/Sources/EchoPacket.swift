/// ICMP and ICMPv6 echo request and reply packets (RFC 792, RFC 4443).
enum EchoPacket {
    static let requestType: (v4: UInt8, v6: UInt8) = (8, 128)
    static let replyType: (v4: UInt8, v6: UInt8) = (0, 129)
    /// Data bytes after the 8-byte header, as iputils' ping sends by default (84-byte IPv4 packets).
    static let payloadSize = 56

    struct Reply {
        var identifier: UInt16
        var sequence: UInt16
        var payload: ArraySlice<UInt8>
    }

    /// An echo request. The payload starts with the sender's 8-byte nonce, so a reply can be told
    /// from anyone else's. The checksum is computed for ICMP over IPv4; the kernel computes it for
    /// ICMPv6 and for unprivileged sockets (and ignores what is there).
    static func request(v6: Bool, identifier: UInt16, sequence: UInt16, nonce: UInt64) -> [UInt8] {
        var packet = [UInt8](repeating: 0, count: 8 + payloadSize)
        packet[0] = v6 ? requestType.v6 : requestType.v4
        packet[4] = UInt8(identifier >> 8)
        packet[5] = UInt8(identifier & 0xff)
        packet[6] = UInt8(sequence >> 8)
        packet[7] = UInt8(sequence & 0xff)
        for i in 0..<8 { packet[8 + i] = UInt8((nonce >> (8 * UInt64(i))) & 0xff) }
        for i in 16..<packet.count { packet[i] = UInt8(i & 0xff) }
        if !v6 {
            let sum = checksum(packet)
            packet[2] = UInt8(sum >> 8)
            packet[3] = UInt8(sum & 0xff)
        }
        return packet
    }

    /// The echo reply in `bytes`, or nil for anything else. `ipHeader`: the bytes start with the
    /// IPv4 header (raw IPv4 sockets); ICMPv6 and unprivileged sockets deliver the ICMP message alone.
    static func reply(in bytes: [UInt8], v6: Bool, ipHeader: Bool) -> Reply? {
        var start = 0
        if ipHeader {
            guard let first = bytes.first, first >> 4 == 4 else { return nil }
            start = Int(first & 0x0f) * 4
        }
        guard bytes.count >= start + 8, bytes[start] == (v6 ? replyType.v6 : replyType.v4), bytes[start + 1] == 0 else {
            return nil
        }
        return Reply(
            identifier: UInt16(bytes[start + 4]) << 8 | UInt16(bytes[start + 5]),
            sequence: UInt16(bytes[start + 6]) << 8 | UInt16(bytes[start + 7]),
            payload: bytes[(start + 8)...])
    }

    static func nonce(in payload: ArraySlice<UInt8>) -> UInt64? {
        guard payload.count >= 8 else { return nil }
        var value: UInt64 = 0
        for (i, byte) in payload.prefix(8).enumerated() { value |= UInt64(byte) << (8 * UInt64(i)) }
        return value
    }

    /// The Internet checksum (RFC 1071): one's complement of the one's complement sum of 16-bit words.
    static func checksum(_ bytes: [UInt8]) -> UInt16 {
        var sum: UInt32 = 0
        var i = 0
        while i + 1 < bytes.count {
            sum += UInt32(bytes[i]) << 8 | UInt32(bytes[i + 1])
            i += 2
        }
        if i < bytes.count { sum += UInt32(bytes[i]) << 8 }
        while sum >> 16 != 0 { sum = (sum & 0xffff) + (sum >> 16) }
        return ~UInt16(sum)
    }
}
