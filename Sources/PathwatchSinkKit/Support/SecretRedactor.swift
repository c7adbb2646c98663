import Synchronization

/// Remembers every secret value substituted into the configuration and scrubs them from any
/// text before it is logged, printed, queued or sent: plug-in messages, labels, check ids,
/// error texts, log lines.
///
/// Whole values are not enough (a plug-in's 768-byte error buffer can cut a secret in half, and
/// the agent itself encodes some secrets: Basic auth is base64 of `user:password`). So each
/// secret is registered with the encodings the agent can produce from it (base64, URL
/// encoding) and the forms a name made from it takes (SecretForms: a command that prints the
/// secret as a perfdata label sees it lower-cased and normalised into a metric name), and for
/// values of at least `pieceLength` bytes every run of text that is made of their
/// `pieceLength`-byte pieces is redacted: a prefix, suffix or middle part of a secret that long
/// never leaves. Shorter secrets are matched whole. Both matches ignore ASCII case, so a secret
/// upper- or lower-cased on its way is found as well.
package final class SecretRedactor: Sendable {
    package static let placeholder = "[redacted]"
    /// Pieces this long or longer are hunted; shorter ones would redact ordinary words.
    package static let pieceLength = 8

    private struct Store {
        /// Short forms, ASCII-folded, longest first.
        var whole: [[UInt8]] = []
        /// Every `pieceLength`-byte piece of the long forms, ASCII-folded.
        var pieces = Set<UInt64>()
        var registered = Set<String>()
        /// The secrets as given, which `add(contentsOf:)` hands on.
        var originals: [String] = []
    }

    private let store = Mutex(Store())

    package init() {}

    /// Registers `secret` and the forms the agent may encode it in or make a name of it.
    package func add(_ secret: String) {
        guard !secret.isEmpty else { return }
        let forms =
            [secret, Base64.encode(Array(secret.utf8)), PercentEncoding.encode(secret)] + SecretForms.names(of: secret)
        store.withLock { s in
            if !s.registered.contains(secret) { s.originals.append(secret) }
            for form in forms where !form.isEmpty && s.registered.insert(form).inserted {
                let bytes = Self.folded(Array(form.utf8))
                if bytes.count < Self.pieceLength {
                    if !s.whole.contains(bytes) {
                        s.whole.append(bytes)
                        s.whole.sort { $0.count > $1.count }
                    }
                } else {
                    for start in 0...(bytes.count - Self.pieceLength) { s.pieces.insert(Self.piece(bytes, at: start)) }
                }
            }
        }
    }

    package func add(contentsOf other: SecretRedactor) {
        for s in other.store.withLock({ $0.originals }) { add(s) }
    }

    package var isEmpty: Bool { store.withLock { $0.registered.isEmpty } }

    package func redact(_ text: String) -> String {
        let (whole, pieces) = store.withLock { ($0.whole, $0.pieces) }
        guard !whole.isEmpty || !pieces.isEmpty else { return text }
        return redact(text, whole, pieces)
    }

    /// A metric or label name with any secret in it made a name again: the placeholder written
    /// without its brackets (`m_[redacted]_total` → `m_redacted_total`), so the name keeps the
    /// alphabet names are held to while no form of the secret stays in it.
    package func redactName(_ name: String) -> String {
        let redacted = redact(name)
        guard redacted != name else { return name }
        return redacted.replacing(Self.placeholder, with: "redacted")
    }

    /// Replaces every maximal run of bytes covered by secret pieces or short secrets, widened to
    /// whole characters, with one placeholder. Matching is on ASCII-folded bytes, which keep
    /// every byte where it was.
    private func redact(_ text: String, _ whole: [[UInt8]], _ pieces: Set<UInt64>) -> String {
        let bytes = Array(text.utf8)
        let folded = Self.folded(bytes)
        var covered = [Bool](repeating: false, count: bytes.count)
        var any = false
        if bytes.count >= Self.pieceLength, !pieces.isEmpty {
            for start in 0...(bytes.count - Self.pieceLength) where pieces.contains(Self.piece(folded, at: start)) {
                for i in start..<(start + Self.pieceLength) { covered[i] = true }
                any = true
            }
        }
        for form in whole where form.count <= folded.count {
            var start = 0
            while start + form.count <= folded.count {
                if folded[start] == form[0] && folded[start..<(start + form.count)].elementsEqual(form) {
                    for i in start..<(start + form.count) { covered[i] = true }
                    any = true
                    start += form.count
                } else {
                    start += 1
                }
            }
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

    /// ASCII letters lower-cased, every other byte as it is.
    private static func folded(_ bytes: [UInt8]) -> [UInt8] {
        bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 32 : $0 }
    }

    private static func piece(_ bytes: [UInt8], at start: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in start..<(start + pieceLength) { value = value << 8 | UInt64(bytes[i]) }
        return value
    }
}

/// RFC 3986 percent-encoding of everything but the unreserved characters: how a secret looks
/// once it is put into a URL.
package enum PercentEncoding {
    package static func encode(_ text: String) -> String {
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
