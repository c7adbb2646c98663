import CLibcrypto

/// SHA-256 and HMAC-SHA256 through OpenSSL's libcrypto, loaded on first use: the webhook sink
/// signs with it (and finds a queue folder under its earlier name), the http sink hashes its page
/// for the page's policy. An agent that does neither never maps it. nil when it cannot be loaded, which the configuration
/// check reports before any webhook sink is made.
package enum Digest {
    package static var available: Bool { pw_crypto_available() != 0 }

    package static func sha256(_ data: [UInt8]) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: Int(PW_SHA256_LENGTH))
        let status = data.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { pw_sha256(input.baseAddress, input.count, $0.baseAddress) }
        }
        return status == 0 ? out : nil
    }

    package static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: Int(PW_SHA256_LENGTH))
        let status = key.withUnsafeBufferPointer { k in
            message.withUnsafeBufferPointer { m in
                out.withUnsafeMutableBufferPointer {
                    pw_hmac_sha256(k.baseAddress, k.count, m.baseAddress, m.count, $0.baseAddress)
                }
            }
        }
        return status == 0 ? out : nil
    }
}
