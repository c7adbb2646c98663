import PathwatchSinkKit

/// `basic_auth_users`: user name → bcrypt hash, as Prometheus's exporter-toolkit takes them.
/// Decoded with the hashes checked for form (never echoed: a hash is a secret too, it can be
/// attacked offline).
package struct BasicAuthUsers: Sendable, Decodable, Equatable {
    package var hashes: [String: String]

    package init(_ hashes: [String: String]) { self.hashes = hashes }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.configObject(keyedBy: UserKey.self)
        guard Bcrypt.isAvailable else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription:
                        "verifying bcrypt hashes needs glibc's libcrypt (libcrypt.so.1, Debian's libcrypt1), which cannot be loaded"
                ))
        }
        var hashes: [String: String] = [:]
        for key in c.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
            let user = key.stringValue
            guard !user.isEmpty, !user.contains(":"),
                user.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
            else {
                // Not named in the path: a name with control characters is not printed.
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: decoder.codingPath,
                        debugDescription: "user names are not empty and hold no \":\" nor control characters"))
            }
            let hash = try c.decode(String.self, forKey: key)
            if let problem = Bcrypt.problem(with: hash) {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: c,
                    debugDescription:
                        "the hash of user \"\(user)\" \(problem); `htpasswd -nbBC 10 USER PASSWORD` writes one"
                )
            }
            hashes[user] = hash
        }
        guard !hashes.isEmpty else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "expected at least one user"))
        }
        self.hashes = hashes
    }

    /// A user name as an object key, so a refusal names the user in its path.
    private struct UserKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
