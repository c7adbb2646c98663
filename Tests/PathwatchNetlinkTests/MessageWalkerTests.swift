import CNetlink
import PathwatchNetlink
import Testing

@Suite("netlink message walker")
struct MessageWalkerTests {
    @Test func splitsAlignedMessagesAndKeepsTheirHeaders() throws {
        let first = NetlinkBytes.message(RTM_NEWLINK, flags: 2, sequence: 9, portID: 77, payload: [1, 2, 3, 4])
        // A 5-byte payload: the walker must skip the 3 bytes of padding before the next header.
        let second = NetlinkBytes.padded(NetlinkBytes.message(RTM_NEWADDR, sequence: 10, payload: [5, 6, 7, 8, 9]))
        let messages = try NetlinkMessage.split(ArraySlice(first + second))
        #expect(messages.count == 2)
        #expect(messages[0].type == UInt16(RTM_NEWLINK))
        #expect(messages[0].flags == 2 && messages[0].sequence == 9 && messages[0].portID == 77)
        #expect(Array(messages[0].payload) == [1, 2, 3, 4])
        #expect(messages[1].offset == 20)
        #expect(Array(messages[1].payload) == [5, 6, 7, 8, 9])
    }

    @Test func acceptsALastMessageWithoutPadding() throws {
        let bytes = NetlinkBytes.message(RTM_NEWLINK, payload: [1, 2, 3, 4, 5])
        #expect(try NetlinkMessage.split(ArraySlice(bytes)).count == 1)
    }

    @Test func rejectsATruncatedHeader() {
        let bytes = Array(NetlinkBytes.message(RTM_NEWLINK, payload: []).prefix(10))
        #expect(throws: NetlinkError.malformed("10 byte(s) at offset 0 are too short for a 16-byte message header")) {
            try NetlinkMessage.split(ArraySlice(bytes))
        }
    }

    @Test func rejectsALengthShorterThanTheHeader() {
        let bytes = NetlinkBytes.message(RTM_NEWLINK, payload: [0, 0, 0, 0], length: 8)
        #expect(throws: NetlinkError.malformed("message at offset 0 has length 8, shorter than its 16-byte header")) {
            try NetlinkMessage.split(ArraySlice(bytes))
        }
    }

    @Test func rejectsALengthPastTheBuffer() {
        let bytes = NetlinkBytes.message(RTM_NEWLINK, payload: [0, 0, 0, 0], length: 4096)
        #expect(throws: NetlinkError.malformed("message at offset 0 has length 4096 but only 20 byte(s) remain")) {
            try NetlinkMessage.split(ArraySlice(bytes))
        }
    }

    @Test func rejectsStrayBytesAfterTheLastMessage() {
        let bytes = NetlinkBytes.message(RTM_NEWLINK, payload: [0, 0, 0, 0]) + [1, 2, 3]
        #expect(throws: NetlinkError.malformed("3 byte(s) at offset 20 are too short for a 16-byte message header")) {
            try NetlinkMessage.split(ArraySlice(bytes))
        }
    }

    @Test func rejectsAMessageThatDoesNotStartOnTheAlignedOffset() {
        // The first message's 5-byte payload is not padded, so the second header starts 3 bytes
        // early; the walker reads at the aligned offset and finds a header cut short.
        let first = NetlinkBytes.message(RTM_NEWLINK, payload: [1, 2, 3, 4, 5])
        let second = NetlinkBytes.message(RTM_NEWLINK, payload: [])
        #expect(throws: NetlinkError.self) { try NetlinkMessage.split(ArraySlice(first + second)) }
    }

    @Test func rejectsAFamilyHeaderCutShort() throws {
        let bytes = NetlinkBytes.message(RTM_NEWLINK, payload: [0, 0, 1, 0, 7, 0, 0, 0])
        let message = try #require(try NetlinkMessage.split(ArraySlice(bytes)).first)
        #expect(
            throws: NetlinkError.malformed(
                "RTM_NEWLINK at offset 0: payload of 8 byte(s) is too short for ifinfomsg (16 bytes)")
        ) {
            try Link(message: message)
        }
    }

    /// Every prefix of a valid datagram, and every single-byte corruption of it, must either
    /// parse or throw; and no strict prefix may parse as a complete link.
    @Test func survivesEveryTruncationAndByteFlip() throws {
        let full = NetlinkBytes.linkMessage()
        for length in 0..<full.count {
            let prefix = ArraySlice(full.prefix(length))
            let parsed = try? NetlinkMessage.split(prefix).map { try Link(message: $0) }
            #expect(
                parsed == nil || parsed?.isEmpty == true,
                "prefix of \(length) bytes parsed as \(String(describing: parsed))")
        }
        var parsedCorruptions = 0
        for position in full.indices {
            for value: UInt8 in [0x00, 0x01, 0x7f, 0xff] {
                var corrupt = full
                corrupt[position] = value
                if (try? NetlinkMessage.split(ArraySlice(corrupt)).map { try Link(message: $0) }) != nil {
                    parsedCorruptions += 1
                }
            }
        }
        // Flipping payload bytes (counters, the MAC) still parses; flipping lengths must not.
        #expect(parsedCorruptions < full.count * 4)
    }
}
