import CCrypt

/// bcrypt through glibc's libcrypt (libxcrypt on Debian: `$2b$`, `$2a$`, `$2y$`), opened on first
/// use (Sources/CCrypt): an agent without `basic_auth_users` never maps it. Slow on purpose (some
/// 50–250 ms at cost 10): called on `CredentialVerifier`'s threads only.
package enum Bcrypt {
    /// Whether libcrypt could be opened (`libcrypt.so.1`, Debian's libcrypt1).
    package static var isAvailable: Bool { pw_crypt_available() != 0 }

    package static let prefixes = ["$2a$", "$2b$", "$2y$"]
    /// `$2b$10$` and 53 characters of salt and hash.
    package static let hashLength = 60
    /// The costs taken. Each step doubles the work: at 14 a login holds one of the verifier's two
    /// threads for a second or more on a small machine, and at 31 for days (every other login
    /// would wait behind it). Below 4 libcrypt computes nothing, so no password would verify.
    package static let costs = 4...14

    /// A hash as `htpasswd -B` or Python's bcrypt writes it, and one this libcrypt can verify.
    package static func isUsableHash(_ hash: String) -> Bool { problem(with: hash) == nil }

    /// What is wrong with `hash` as a user's bcrypt hash, or nil. Never quotes it, nor says how
    /// long it is: a hash can be attacked offline, and may come from a secret file.
    package static func problem(with hash: String) -> String? {
        let bytes = Array(hash.utf8)
        guard prefixes.contains(where: { hash.hasPrefix($0) }) else {
            return "is not a bcrypt hash: it does not start with $2b$, $2a$ or $2y$"
        }
        guard bytes.count >= 7, bytes[6] == UInt8(ascii: "$"), let cost = cost(of: bytes) else {
            return "is not a bcrypt hash: no two-digit cost follows its prefix ($2b$10$…)"
        }
        guard costs.contains(cost) else {
            return "has cost \(cost); allowed are \(costs.lowerBound) to \(costs.upperBound) (10 is usual)"
        }
        guard bytes.count == hashLength else {
            return
                "is not a bcrypt hash: it is not \(hashLength) characters long (prefix and cost, 22 of salt, 31 of hash)"
        }
        guard bytes[7..<29].allSatisfy(isBcryptBase64) else {
            return "is not a bcrypt hash: its salt holds characters outside bcrypt's alphabet (./A-Za-z0-9)"
        }
        guard bytes[29...].allSatisfy(isBcryptBase64) else {
            return "is not a bcrypt hash: its last 31 characters hold some outside bcrypt's alphabet (./A-Za-z0-9)"
        }
        guard pw_crypt_setting_ok(hash) != 0 else { return "is not a bcrypt hash libcrypt can verify" }
        return nil
    }

    /// The cost of a hash `problem(with:)` passed: the two digits after the prefix.
    package static func cost(of hash: String) -> Int { cost(of: Array(hash.utf8)) ?? costs.upperBound }

    /// The same hash with another cost: as much work to check a password against, per cost,
    /// as a configured hash of that cost (its salt is the same, its result is ignored).
    package static func withCost(_ cost: Int, _ hash: String) -> String {
        String(hash.prefix(4)) + (cost < 10 ? "0" : "") + String(cost) + String(hash.dropFirst(6))
    }

    private static func cost(of bytes: [UInt8]) -> Int? {
        guard bytes.count >= 6, bytes[4...5].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(bytes[4] - 0x30) * 10 + Int(bytes[5] - 0x30)
    }

    private static func isBcryptBase64(_ b: UInt8) -> Bool {
        b == UInt8(ascii: ".") || b == UInt8(ascii: "/") || (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A)
            || (b >= 0x61 && b <= 0x7A)
    }

    /// Whether `password` hashes to `hash`; compared in constant time. `scratch` is
    /// crypt_rn's working memory (some 32 KiB), one per thread.
    package static func verify(password: [UInt8], hash: String, scratch: Scratch) -> Bool {
        let expected = Array(hash.utf8)
        var phrase = password
        phrase.append(0)
        let computed: [UInt8]? = phrase.withUnsafeBufferPointer { p in
            p.withMemoryRebound(to: CChar.self) { chars in
                guard let out = pw_crypt_rn(chars.baseAddress, hash, scratch.memory, Int32(Scratch.size)) else {
                    return nil
                }
                return Array(String(cString: out).utf8)
            }
        }
        // Wipe what crypt_rn left of the password.
        scratch.clear()
        guard let computed else { return false }
        return ConstantTime.equal(computed, expected)
    }

    /// crypt_rn's `struct crypt_data`, zeroed before first use as libcrypt asks. Unchecked
    /// Sendable: each belongs to one worker thread, and only that thread touches it.
    package final class Scratch: @unchecked Sendable {
        package static let size = pw_crypt_data_size()
        package let memory = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)

        package init() { clear() }
        package func clear() { memory.initializeMemory(as: UInt8.self, repeating: 0, count: Self.size) }
        deinit { memory.deallocate() }
    }
}

/// Comparisons that take as long whatever prefix matches, so timing tells nothing of a secret.
package enum ConstantTime {
    package static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<b.count { difference |= (i < a.count ? a[i] : 0) ^ b[i] }
        return difference == 0
    }
}
