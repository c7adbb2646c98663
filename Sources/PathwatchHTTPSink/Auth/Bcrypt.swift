import CCrypt

/// bcrypt through glibc's libcrypt (libxcrypt on Debian: `$2b$`, `$2a$`, `$2y$`), opened on first
/// use (Sources/CCrypt): an agent without `basic_auth_users` never maps it. Slow on purpose (some
/// 50–250 ms at cost 10): called on `CredentialVerifier`'s threads only.
enum Bcrypt {
    /// Whether libcrypt could be opened (`libcrypt.so.1`, Debian's libcrypt1).
    static var isAvailable: Bool { pw_crypt_available() != 0 }

    static let prefixes = ["$2a$", "$2b$", "$2y$"]
    /// `$2b$10$` and 53 characters of salt and hash.
    static let hashLength = 60

    /// A hash as `htpasswd -B` or Python's bcrypt writes it, and one this libcrypt can verify.
    static func isUsableHash(_ hash: String) -> Bool {
        guard hash.utf8.count == hashLength, prefixes.contains(where: { hash.hasPrefix($0) }) else { return false }
        return pw_crypt_setting_ok(hash) != 0
    }

    /// Whether `password` hashes to `hash`; compared in constant time. `scratch` is
    /// crypt_rn's working memory (some 32 KiB), one per thread.
    static func verify(password: [UInt8], hash: String, scratch: Scratch) -> Bool {
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
    final class Scratch: @unchecked Sendable {
        static let size = pw_crypt_data_size()
        let memory = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)

        init() { clear() }
        func clear() { memory.initializeMemory(as: UInt8.self, repeating: 0, count: Self.size) }
        deinit { memory.deallocate() }
    }
}

/// Comparisons that take as long whatever prefix matches, so timing tells nothing of a secret.
enum ConstantTime {
    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<b.count { difference |= (i < a.count ? a[i] : 0) ^ b[i] }
        return difference == 0
    }
}
