import PathwatchDigest
import PathwatchSinkKit

/// Standard Webhooks signing: `webhook-id` (stable for one payload across every retry),
/// `webhook-timestamp` (seconds, when this attempt is sent) and
/// `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`.
/// The timestamp is taken per attempt so a receiver's replay window (five minutes in the
/// reference implementations) accepts payloads that waited in the queue for hours.
struct WebhookSigner: Sendable {
    let key: [UInt8]

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
