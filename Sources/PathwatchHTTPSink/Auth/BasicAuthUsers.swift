/// `basic_auth_users`: user name → bcrypt hash, as Prometheus's exporter-toolkit takes them.
/// Decoded with the hashes checked for form (never echoed: a hash is a secret too, it can be
/// attacked offline).
package struct BasicAuthUsers: Sendable, Decodable, Equatable {
    package var hashes: [String: String]

    package init(_ hashes: [String: String]) { self.hashes = hashes }

    package init(from decoder: any Decoder) throws {
        let hashes = try [String: String](from: decoder)
        guard Bcrypt.isAvailable else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription:
                        "verifying bcrypt hashes needs glibc's libcrypt (libcrypt.so.1, Debian's libcrypt1), which cannot be loaded"
                ))
        }
        for user in hashes.keys.sorted() {
            let hash = hashes[user]!
            guard !user.isEmpty, !user.contains(":"),
                user.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
            else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: decoder.codingPath,
                        debugDescription: "user names are not empty and hold no \":\" nor control characters"))
            }
            guard Bcrypt.isUsableHash(hash) else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: decoder.codingPath,
                        debugDescription:
                            "the hash of user \"\(user)\" is not a bcrypt hash ($2b$…, 60 characters, as `htpasswd -nbBC 10 USER PASSWORD` writes)"
                    ))
            }
        }
        guard !hashes.isEmpty else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "expected at least one user"))
        }
        self.hashes = hashes
    }
}
