/// Standard Webhooks signing: `webhook-id` (stable for one payload across every retry),
/// `webhook-timestamp` (seconds, when this attempt is sent) and
/// `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`.
/// The timestamp is taken per attempt so a receiver's replay window (five minutes in the
/// reference implementations) accepts payloads that waited in the queue for hours.
struct WebhookSigner: Sendable {
    struct SecretError: Error, CustomStringConvertible {
        var description: String
    }

    static let secretPrefix = "whsec_"

    let key: [UInt8]

    /// The key inside a `whsec_<base64>` secret. The error never repeats the secret.
    static func key(fromSecret secret: String) throws(SecretError) -> [UInt8] {
        guard secret.hasPrefix(secretPrefix) else {
            throw SecretError(description: "expected a Standard Webhooks secret: \"whsec_\" followed by a base64 key")
        }
        guard let key = Base64.decode(String(secret.dropFirst(secretPrefix.count))) else {
            throw SecretError(description: "the key after \"whsec_\" is not valid base64")
        }
        guard key.count >= 16 else {
            throw SecretError(description: "the key after \"whsec_\" is \(key.count) bytes; expected at least 16 (24 to 64 is usual)")
        }
        return key
    }

    /// `v1,<base64>` for one attempt.
    func signature(id: String, timestamp: Int64, body: [UInt8]) -> String {
        var message = Array("\(id).\(timestamp).".utf8)
        message += body
        // libcrypto is in the process before the first delivery (libcurl links it), and the
        // configuration check refused a webhook sink where it cannot be loaded.
        let mac = Digest.hmacSHA256(key: key, message: message) ?? []
        return "v1," + Base64.encode(mac)
    }

    /// The three header lines for one attempt.
    func headers(id: String, timestamp: Int64, body: [UInt8]) -> [String] {
        [
            "webhook-id: \(id)",
            "webhook-timestamp: \(timestamp)",
            "webhook-signature: \(signature(id: id, timestamp: timestamp, body: body))",
        ]
    }
}
