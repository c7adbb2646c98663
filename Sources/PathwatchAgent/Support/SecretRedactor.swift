import Synchronization

/// Remembers every secret value substituted into the configuration and scrubs them from any
/// text before it is logged, printed, queued or sent: plug-in messages, labels, check ids,
/// error texts, log lines.
///
/// Whole values are not enough (a plug-in's 768-byte error buffer can cut a secret in half, and
/// the agent itself encodes some secrets: Basic auth is base64 of `user:password`). So each
/// secret is registered with the encodings the agent can produce from it (base64, URL
/// encoding), and for values of at least `pieceLength` bytes every run of text that is made of
/// their `pieceLength`-byte pieces is redacted: a prefix, suffix or middle part of a secret that
/// long never leaves. Shorter secrets are matched whole.
package final class SecretRedactor: Sendable {
    package static let placeholder = "[redacted]"
    /// Pieces this long or longer are hunted; shorter ones would redact ordinary words.
    package static let pieceLength = 8

    private struct Store {
        var whole: [String] = []
        var pieces = Set<UInt64>()
        var registered = Set<String>()
    }

    private let store = Mutex(Store())

    package init() {}

    /// Registers `secret` and the forms the agent may encode it in.
    package func add(_ secret: String) {
        guard !secret.isEmpty else { return }
        let forms = [secret, Base64.encode(Array(secret.utf8)), PercentEncoding.encode(secret)]
        store.withLock { s in
            for form in forms where s.registered.insert(form).inserted {
                let bytes = Array(form.utf8)
                if bytes.count < Self.pieceLength {
                    s.whole.append(form)
                    s.whole.sort { $0.utf8.count > $1.utf8.count }
                } else {
                    for start in 0...(bytes.count - Self.pieceLength) { s.pieces.insert(Self.piece(bytes, at: start)) }
                }
            }
        }
    }

    package func add(contentsOf other: SecretRedactor) {
        for s in other.store.withLock({ Array($0.registered) }) { add(s) }
    }

    package var isEmpty: Bool { store.withLock { $0.registered.isEmpty } }

    package func redact(_ text: String) -> String {
        let (whole, pieces) = store.withLock { ($0.whole, $0.pieces) }
        guard !whole.isEmpty || !pieces.isEmpty else { return text }
        var out = text
        if !pieces.isEmpty { out = redactPieces(out, pieces) }
        for secret in whole where out.contains(secret) {
            out = out.replacing(secret, with: Self.placeholder)
        }
        return out
    }

    /// Replaces every maximal run of bytes covered by secret pieces, widened to whole
    /// characters, with one placeholder.
    private func redactPieces(_ text: String, _ pieces: Set<UInt64>) -> String {
        let bytes = Array(text.utf8)
        guard bytes.count >= Self.pieceLength else { return text }
        var covered = [Bool](repeating: false, count: bytes.count)
        var any = false
        for start in 0...(bytes.count - Self.pieceLength) where pieces.contains(Self.piece(bytes, at: start)) {
            for i in start..<(start + Self.pieceLength) { covered[i] = true }
            any = true
        }
        guard any else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            guard covered[i] else {
                out.append(bytes[i])
                i += 1
                continue
            }
            // Widen to character boundaries: never leave half a UTF-8 sequence behind.
            if bytes[i] & 0xC0 == 0x80 {
                while let last = out.last {
                    out.removeLast()
                    if last & 0xC0 != 0x80 { break }
                }
            }
            while i < bytes.count && (covered[i] || bytes[i] & 0xC0 == 0x80) { i += 1 }
            out += Array(Self.placeholder.utf8)
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func piece(_ bytes: [UInt8], at start: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in start..<(start + pieceLength) { value = value << 8 | UInt64(bytes[i]) }
        return value
    }
}

/// RFC 3986 percent-encoding of everything but the unreserved characters: how a secret looks
/// once it is put into a URL.
enum PercentEncoding {
    static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let c = Character(Unicode.Scalar(byte))
            if byte < 0x80, c.isLetter || c.isNumber || "-._~".contains(c) {
                out.append(c)
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return out
    }
}
