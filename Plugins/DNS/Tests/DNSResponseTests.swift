import PathwatchProbeKit
import Testing

@testable import DNSProbe

/// Responses read byte by byte: codes, truncation, answers of the type asked, compression, and
/// what a hostile response cannot do.
@Suite struct DNSResponseTests {
    /// "www.test" as labels.
    static let name: [UInt8] = [3] + Array("www".utf8) + [4] + Array("test".utf8) + [0]

    static func message(rcode: UInt8 = 0, truncated: Bool = false, answers: [[UInt8]], type: UInt16 = 1) -> [UInt8] {
        let count = UInt8(answers.count)
        var bytes: [UInt8] = [0x12, 0x34, 0x81 | (truncated ? 0x02 : 0), 0x80 | rcode, 0, 1, 0, count, 0, 0, 0, 0]
        bytes += name + [UInt8(type >> 8), UInt8(type & 0xFF), 0, 1]
        for answer in answers { bytes += answer }
        return bytes
    }

    /// A record whose owner is a pointer to the question's name (offset 12).
    static func record(type: UInt16, _ data: [UInt8]) -> [UInt8] {
        [
            0xC0, 12, UInt8(type >> 8), UInt8(type & 0xFF), 0, 1, 0, 0, 0, 60, UInt8(data.count >> 8),
            UInt8(data.count & 0xFF),
        ] + data
    }

    static func read(_ bytes: [UInt8], _ type: RecordType) throws -> DNSResponse {
        try bytes.withUnsafeBufferPointer { buffer in try DNSResponse(buffer, asked: type) }
    }

    @Test func addressesOfTheTypeAskedOnly() throws {
        let cname = Self.record(type: 5, [6] + Array("target".utf8) + [0xC0, 16])
        let a = Self.record(type: 1, [10, 0, 0, 5])
        let response = try Self.read(Self.message(answers: [cname, a, Self.record(type: 1, [10, 0, 0, 6])]), .A)
        #expect(response.rcode == 0 && !response.truncated)
        #expect(response.answers == ["10.0.0.5", "10.0.0.6"])
        let asCNAME = try Self.read(Self.message(answers: [cname, a], type: 5), .CNAME)
        #expect(asCNAME.answers == ["target.test"])
    }

    @Test func mxTxtSoaAndAAAA() throws {
        let mx = Self.record(type: 15, [0, 10, 4] + Array("mail".utf8) + [0xC0, 16])
        #expect(try Self.read(Self.message(answers: [mx], type: 15), .MX).answers == ["10 mail.test"])
        let txt = Self.record(type: 16, [5] + Array("hello".utf8) + [6] + Array(" world".utf8))
        #expect(try Self.read(Self.message(answers: [txt], type: 16), .TXT).answers == ["hello world"])
        let soa = Self.record(
            type: 6,
            [2] + Array("ns".utf8) + [0xC0, 16, 4] + Array("host".utf8) + [0xC0, 16]
                + [0, 0, 0, 7, 0, 0, 14, 16, 0, 0, 3, 132, 0, 9, 58, 128, 0, 0, 0, 60])
        #expect(
            try Self.read(Self.message(answers: [soa], type: 6), .SOA).answers == [
                "ns.test host.test 7 3600 900 604800 60"
            ])
        let aaaa = Self.record(type: 28, [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [1])
        #expect(try Self.read(Self.message(answers: [aaaa], type: 28), .AAAA).answers == ["2001:db8::1"])
    }

    @Test func codesAndTruncation() throws {
        let servfail = try Self.read(Self.message(rcode: 2, answers: []), .A)
        #expect(servfail.rcode == 2 && servfail.answers.isEmpty && ResponseCode.name(servfail.rcode) == "SERVFAIL")
        #expect(try Self.read(Self.message(truncated: true, answers: []), .A).truncated)
        #expect(
            ResponseCode.name(3) == "NXDOMAIN" && ResponseCode.name(14) == "RCODE14"
                && ResponseCode.code("refused") == 5)
    }

    @Test func hostileResponsesAreMalformedNotCrashes() {
        // A pointer to itself, a record longer than the message, a message cut short.
        let loop = Self.record(type: 5, [0xC0, UInt8(12 + Self.name.count + 4 + 12)])
        #expect(throws: DNSResponse.Malformed.self) { try Self.read(Self.message(answers: [loop], type: 5), .CNAME) }
        var long = Self.message(answers: [Self.record(type: 1, [10, 0, 0, 5])])
        long[long.count - 5] = 0xFF
        #expect(throws: DNSResponse.Malformed.self) { try Self.read(long, .A) }
        #expect(throws: DNSResponse.Malformed.self) { try Self.read(Array(Self.message(answers: []).prefix(14)), .A) }
        #expect(throws: DNSResponse.Malformed.self) { try Self.read([0, 1, 2], .A) }
    }

    @Test func verdictsOfOneQuery() throws {
        let query = try ProbeDriver.make(#"{"queries": [{"name": "www.test", "expect": ["10.0.0.5"]}]}"#).queries[0]
        func verdict(_ outcome: QueryOutcome) -> QueryVerdict {
            QueryVerdict(outcome, query: query, warn: .milliseconds(100), crit: .milliseconds(500))
        }
        let good = try Self.read(Self.message(answers: [Self.record(type: 1, [10, 0, 0, 5])]), .A)
        #expect(verdict(.response(good, latencyMilliseconds: 0.25)).message == "10.0.0.5 in 0.25 ms")
        #expect(verdict(.response(good, latencyMilliseconds: 0.25)).state == .ok)
        #expect(verdict(.response(good, latencyMilliseconds: 301)).state == .warning)
        #expect(
            verdict(.response(good, latencyMilliseconds: 301)).message == "slow (warning at 100 ms): 10.0.0.5 in 301 ms"
        )
        #expect(verdict(.response(good, latencyMilliseconds: 600)).state == .critical)
        let hijacked = try Self.read(Self.message(answers: [Self.record(type: 1, [10, 66, 6, 6])]), .A)
        #expect(
            verdict(.response(hijacked, latencyMilliseconds: 1)).message
                == "unexpected answer 10.66.6.6 (expected 10.0.0.5) in 1 ms")
        let nxdomain = try Self.read(Self.message(rcode: 3, answers: []), .A)
        #expect(verdict(.response(nxdomain, latencyMilliseconds: 1)).message == "NXDOMAIN in 1 ms (expected NOERROR)")
        let empty = try Self.read(Self.message(answers: []), .A)
        #expect(
            verdict(.response(empty, latencyMilliseconds: 1)).message == "no A record (NOERROR, empty answer) in 1 ms")
        #expect(verdict(.noAnswer("connection refused")).state == .critical)
        #expect(verdict(.notSent("c-ares: out of memory")).state == .unknown)
    }
}
