#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// What a resolver's response says (RFC 1035 §4.1): its code, whether it was truncated, and the
/// answer records of the type asked, as text ("10.0.0.5", "10 mail.example.com"). Read here
/// rather than with c-ares's per-type parsers so every type reads the same way, and so a response
/// with an error code is read too.
struct DNSResponse: Equatable {
    let rcode: Int
    let truncated: Bool
    /// The answer section's records of the type asked, in order.
    let answers: [String]

    struct Malformed: Error {}

    init(_ bytes: UnsafeBufferPointer<UInt8>, asked type: RecordType) throws(Malformed) {
        var reader = Reader(bytes: bytes)
        guard bytes.count >= 12 else { throw Malformed() }
        rcode = Int(bytes[3] & 0x0F)
        truncated = bytes[2] & 0x02 != 0
        let questions = Int(bytes[4]) << 8 | Int(bytes[5])
        let answerCount = Int(bytes[6]) << 8 | Int(bytes[7])
        reader.offset = 12
        for _ in 0..<questions {
            _ = try reader.name()
            try reader.skip(4)
        }
        var answers: [String] = []
        for _ in 0..<answerCount {
            _ = try reader.name()
            let recordType = try reader.u16()
            let recordClass = try reader.u16()
            try reader.skip(4)
            let length = Int(try reader.u16())
            let end = reader.offset + length
            guard end <= bytes.count else { throw Malformed() }
            if recordType == type.code && recordClass == 1 {
                answers.append(try Self.render(type, &reader, end: end))
            }
            reader.offset = end
        }
        self.answers = answers
    }

    private static func render(_ type: RecordType, _ reader: inout Reader, end: Int) throws(Malformed) -> String {
        switch type {
        case .A, .AAAA:
            let size = type == .A ? 4 : 16
            guard end - reader.offset == size else { throw Malformed() }
            return AnswerText.address(Array(reader.bytes[reader.offset..<end]))
        case .CNAME, .NS, .PTR:
            return try reader.name()
        case .MX:
            let preference = try reader.u16()
            return "\(preference) \(try reader.name())"
        case .TXT:
            // The character-strings of one record, joined as one text (as most checks compare them).
            var text: [UInt8] = []
            while reader.offset < end {
                let count = Int(try reader.u8())
                guard reader.offset + count <= end else { throw Malformed() }
                text += reader.bytes[reader.offset..<reader.offset + count]
                reader.offset += count
            }
            return String(decoding: text, as: UTF8.self)
        case .SOA:
            let primary = try reader.name()
            let mailbox = try reader.name()
            var numbers: [String] = []
            for _ in 0..<5 { numbers.append(String(try reader.u32())) }
            return ([primary, mailbox] + numbers).joined(separator: " ")
        }
    }

    /// Reads big-endian fields and (compressed) names; every read is bounds-checked.
    struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var offset = 0

        mutating func u8() throws(Malformed) -> UInt8 {
            guard offset < bytes.count else { throw Malformed() }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func u16() throws(Malformed) -> UInt16 { UInt16(try u8()) << 8 | UInt16(try u8()) }

        mutating func u32() throws(Malformed) -> UInt32 { UInt32(try u16()) << 16 | UInt32(try u16()) }

        mutating func skip(_ count: Int) throws(Malformed) {
            guard offset + count <= bytes.count else { throw Malformed() }
            offset += count
        }

        /// A domain name, lower-cased, without its trailing dot ("" for the root). A compression
        /// pointer is followed, and reading resumes after the pointer; a name may follow at most
        /// 64 pointers (a loop is malformed).
        mutating func name() throws(Malformed) -> String {
            var labels: [String] = []
            var position = offset
            var resume: Int?
            var jumps = 0
            while true {
                guard position < bytes.count else { throw Malformed() }
                let length = Int(bytes[position])
                if length & 0xC0 == 0xC0 {
                    guard position + 1 < bytes.count, jumps < 64 else { throw Malformed() }
                    if resume == nil { resume = position + 2 }
                    position = (length & 0x3F) << 8 | Int(bytes[position + 1])
                    jumps += 1
                    continue
                }
                guard length & 0xC0 == 0 else { throw Malformed() }
                position += 1
                if length == 0 { break }
                guard position + length <= bytes.count else { throw Malformed() }
                labels.append(String(decoding: bytes[position..<position + length], as: UTF8.self).lowercased())
                position += length
            }
            offset = resume ?? position
            return labels.joined(separator: ".")
        }
    }
}

/// How answers read, and how expected answers are put in the same form.
enum AnswerText {
    static func address(_ bytes: [UInt8]) -> String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        guard inet_ntop(family, bytes, &text, socklen_t(text.count)) != nil else { return "?" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// An expected answer in the form answers are read in: addresses in canonical form
    /// ("2001:DB8:0::1" reads "2001:db8::1"), names lower-cased without their trailing dot.
    /// Nil when it cannot be an answer of that type.
    static func normalized(_ text: String, for type: RecordType) -> String? {
        switch type {
        case .A, .AAAA:
            var buffer = [UInt8](repeating: 0, count: type == .A ? 4 : 16)
            guard inet_pton(type == .A ? AF_INET : AF_INET6, text, &buffer) == 1 else { return nil }
            return address(buffer)
        case .CNAME, .NS, .PTR:
            return name(text)
        case .MX:
            let parts = text.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count == 2, let preference = UInt16(parts[0]) else { return nil }
            return "\(preference) \(name(String(parts[1])))"
        case .SOA:
            let parts = text.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count == 7, parts.dropFirst(2).allSatisfy({ UInt32($0) != nil }) else { return nil }
            return ([name(String(parts[0])), name(String(parts[1]))] + parts.dropFirst(2).map(String.init)).joined(
                separator: " ")
        case .TXT:
            return text
        }
    }

    static func name(_ text: String) -> String {
        let lower = text.lowercased()
        return lower.hasSuffix(".") ? String(lower.dropLast()) : lower
    }

    /// The reverse-lookup name of an address ("10.0.0.5" → "5.0.0.10.in-addr.arpa"); nil when
    /// `text` is not an address.
    static func reverseName(_ text: String) -> String? {
        var v4 = [UInt8](repeating: 0, count: 4)
        if inet_pton(AF_INET, text, &v4) == 1 {
            return v4.reversed().map(String.init).joined(separator: ".") + ".in-addr.arpa"
        }
        var v6 = [UInt8](repeating: 0, count: 16)
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let digits = "0123456789abcdef".map(String.init)
        // Nibbles from the last byte's low one to the first byte's high one (RFC 3596 §2.5).
        return v6.reversed().flatMap { [digits[Int($0 & 0x0F)], digits[Int($0 >> 4)]] }.joined(separator: ".")
            + ".ip6.arpa"
    }
}
