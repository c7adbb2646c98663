import PathwatchSinkKit

/// A Standard Webhooks secret as a webhook sink's `secret` is written: `whsec_` followed by a
/// base64 key. Read when the configuration is loaded, so a malformed one is a configuration
/// error; the sink (PathwatchWebhook) signs with the key.
package enum WebhookSecret {
    package struct FormatError: Error, CustomStringConvertible {
        package var description: String
    }

    package static let prefix = "whsec_"

    /// The key inside a `whsec_<base64>` secret. The error never repeats the secret.
    package static func key(from secret: String) throws(FormatError) -> [UInt8] {
        guard secret.hasPrefix(prefix) else {
            throw FormatError(description: "expected a Standard Webhooks secret: \"whsec_\" followed by a base64 key")
        }
        guard let key = Base64.decode(String(secret.dropFirst(prefix.count))) else {
            throw FormatError(description: "the key after \"whsec_\" is not valid base64")
        }
        guard key.count >= 16 else {
            throw FormatError(
                description: "the key after \"whsec_\" is \(key.count) bytes; expected at least 16 (24 to 64 is usual)")
        }
        return key
    }
}
