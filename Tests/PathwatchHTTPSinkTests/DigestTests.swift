import Foundation
import PathwatchDigest
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchHTTPSink
@testable import PathwatchHTTPSinkSettings

/// SHA-256 and HMAC-SHA256 through libcrypto, against published vectors, and the digests the
/// agent relies on (the page's policy hashes, the queue folder's name).
@Suite struct DigestTests {
    private func hex(_ bytes: [UInt8]?) -> String? {
        bytes.map { $0.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }
    }

    @Test func sha256MatchesTheStandardsVectors() {
        #expect(Digest.available)
        // FIPS 180-2, appendix B.1 and the empty message.
        #expect(
            hex(Digest.sha256(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hex(Digest.sha256([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func hmacMatchesRFC4231() {
        // RFC 4231, test case 2: key "Jefe".
        let mac = Digest.hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(hex(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // Test case 6: a key longer than the block is hashed first.
        let long = Digest.hmacSHA256(
            key: [UInt8](repeating: 0xaa, count: 131),
            message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))
        #expect(hex(long) == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    /// The policy is computed from the page's own texts, so it allows exactly them: the hashes
    /// come from `sha256sum`, not from the code under test.
    @Test func thePagesPolicyAllowsExactlyItsScriptAndStyle() throws {
        let policy = try #require(StatusPageResponse.reply.headers["Content-Security-Policy"].first)
        let script = try #require(try sha256Base64(StatusPage.script))
        let style = try #require(try sha256Base64(StatusPage.style))
        #expect(policy.contains("script-src 'sha256-\(script)'"), "\(policy)")
        #expect(policy.contains("style-src 'sha256-\(style)'"), "\(policy)")
        #expect(StatusPageResponse.reply.status == .ok)
    }
}

/// Base64 of the text's SHA-256, by coreutils.
private func sha256Base64(_ text: String) throws -> String? {
    let hex = try run(["sha256sum"], input: text).stdout.prefix(64)
    var bytes: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 2)
        guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
        bytes.append(byte)
        index = next
    }
    return bytes.count == 32 ? Data(bytes).base64EncodedString() : nil
}
